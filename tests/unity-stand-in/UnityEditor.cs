// A small stand-in for the UnityEditor members the package's Editor code uses, so that
// `cargo xtask test` can compile it with Mono's mcs on a machine without the Unity Editor.
// Only signatures matter here; nothing in it is shipped or run.
using System;

namespace UnityEditor
{
    public class Editor : UnityEngine.ScriptableObject
    {
        public UnityEngine.Object target { get { return null; } }
        public virtual void OnInspectorGUI() { }
        public bool DrawDefaultInspector() { return true; }
    }

    [AttributeUsage(AttributeTargets.Class)]
    public sealed class CustomEditor : Attribute
    {
        public CustomEditor(Type inspectedType) { }
    }

    [AttributeUsage(AttributeTargets.Class)]
    public sealed class InitializeOnLoadAttribute : Attribute { }

    public enum MessageType { None, Info, Warning, Error }

    public static class EditorGUILayout
    {
        public static void HelpBox(string message, MessageType type) { }
        public static void LabelField(string label) { }
        public static void LabelField(string label, string label2) { }
    }

    public static class EditorGUI
    {
        public static void DrawRect(UnityEngine.Rect rect, UnityEngine.Color color) { }
    }
}
