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

    [AttributeUsage(AttributeTargets.Method)]
    public sealed class MenuItem : Attribute
    {
        public MenuItem(string itemName) { }
    }

    public static class AssetDatabase
    {
        public static void Refresh() { }
        public static bool DeleteAsset(string path) { return true; }
    }

    public enum BuildTarget { StandaloneWindows = 5, StandaloneWindows64 = 19, StandaloneOSX = 2, StandaloneLinux64 = 24, Android = 13, iOS = 9, WebGL = 20, tvOS = 37, VisionOS = 47 }

    public enum BuildTargetGroup { Unknown = 0, Standalone = 1, iOS = 4, Android = 7, WebGL = 13 }

    public enum iOSSdkVersion { DeviceSDK = 988, SimulatorSDK = 989 }

    public enum AppleMobileArchitectureSimulator { X86_64 = 0, ARM64 = 1, Universal = 2 }

    // Settable, as in the Editor, so that tests/unity-editor can try each setting.
    public static class PlayerSettings
    {
        private static readonly System.Collections.Generic.Dictionary<BuildTargetGroup, string> defines = new System.Collections.Generic.Dictionary<BuildTargetGroup, string>();

        public static string GetScriptingDefineSymbolsForGroup(BuildTargetGroup group)
        {
            string text;
            return defines.TryGetValue(group, out text) ? text : "";
        }

        public static void SetScriptingDefineSymbolsForGroup(BuildTargetGroup group, string text) { defines[group] = text; }

        public static class WebGL
        {
            public static bool wasm2023 { get; set; }
            public static bool threadsSupport { get; set; }
        }

        public static class iOS
        {
            public static iOSSdkVersion sdkVersion { get; set; } = iOSSdkVersion.DeviceSDK;
            public static AppleMobileArchitectureSimulator simulatorSdkArchitecture { get; set; }
        }
    }

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

namespace UnityEditor.Build.Reporting
{
    public sealed class BuildSummary
    {
        // The target of the build a test pretends to make.
        public static UnityEditor.BuildTarget StandInPlatform = UnityEditor.BuildTarget.WebGL;

        public UnityEditor.BuildTarget platform { get { return StandInPlatform; } }
    }

    public sealed class BuildReport
    {
        public BuildSummary summary { get { return new BuildSummary(); } }
    }
}

namespace UnityEditor.Build
{
    public interface IOrderedCallback { int callbackOrder { get; } }

    public interface IPreprocessBuildWithReport : IOrderedCallback
    {
        void OnPreprocessBuild(UnityEditor.Build.Reporting.BuildReport report);
    }

    public class BuildFailedException : System.Exception
    {
        public BuildFailedException(string message) : base(message) { }
    }
}
