// A small stand-in for the UnityEngine and Unity.Collections types that the package's
// Unity-only code and the sample scripts use, so that `cargo xtask test` can compile them
// with Mono's mcs on a machine without the Unity Editor (defines UNITY_5_3_OR_NEWER).
// Only signatures matter here; nothing in it is shipped or run.
using System;

namespace UnityEngine
{
    public class Object { }
    public class Component : Object { }
    public class Behaviour : Component { public bool enabled; }
    public class MonoBehaviour : Behaviour { }

    [AttributeUsage(AttributeTargets.Field)]
    public sealed class SerializeField : Attribute { }

    public struct Vector2
    {
        public float x;
        public float y;
        public Vector2(float x, float y) { this.x = x; this.y = y; }
    }

    public struct Color
    {
        public float r, g, b, a;
        public Color(float r, float g, float b) { this.r = r; this.g = g; this.b = b; a = 1f; }
    }

    public struct Rect
    {
        public float x, y, width, height;
        public Rect(float x, float y, float width, float height) { this.x = x; this.y = y; this.width = width; this.height = height; }
    }

    public class Texture { }
    public class Texture2D : Texture { public static Texture2D whiteTexture { get { return null; } } }

    public static class Screen
    {
        public static int width { get { return 1280; } }
        public static int height { get { return 720; } }
    }

    public static class Mathf
    {
        public static int Min(int a, int b) { return Math.Min(a, b); }
    }

    public static class GUI
    {
        public static Color color { get; set; }
        public static void Box(Rect position, string text) { }
        public static void DrawTexture(Rect position, Texture image) { }
    }

    public static class GUILayout
    {
        public static void BeginArea(Rect screenRect) { }
        public static void EndArea() { }
        public static void BeginHorizontal() { }
        public static void EndHorizontal() { }
        public static void Label(string text) { }
        public static bool Button(string text) { return false; }
    }
}

namespace Unity.Collections
{
    public struct NativeArray<T> where T : struct
    {
        public int Length { get { return 0; } }
    }
}

namespace Unity.Collections.LowLevel.Unsafe
{
    public static class NativeArrayUnsafeUtility
    {
        public static unsafe void* GetUnsafePtr<T>(this NativeArray<T> nativeArray) where T : struct { return null; }
        public static unsafe void* GetUnsafeReadOnlyPtr<T>(this NativeArray<T> nativeArray) where T : struct { return null; }
    }
}
