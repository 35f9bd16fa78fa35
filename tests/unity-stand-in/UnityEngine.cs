// A small stand-in for the UnityEngine and Unity.Collections types that the package's
// Unity-only code and the sample scripts use, so that `cargo xtask test` can compile them
// with Mono's mcs on a machine without the Unity Editor (defines UNITY_5_3_OR_NEWER).
// Only signatures matter here; nothing in it is shipped. Programs run against it:
// tests/load-failure (the package's Unity Editor flavour without, then with, the library)
// and tests/unity-flavour (the ladder client's UnityWebRequest path).
using System;

namespace UnityEngine
{
    public class Object { }
    public class Component : Object { }
    public class Behaviour : Component { public bool enabled; }
    public class MonoBehaviour : Behaviour { }
    public class ScriptableObject : Object { }
    public class TextAsset : Object { public string text { get { return ""; } } }

    public static class Resources
    {
        public static T Load<T>(string path) where T : Object { return null; }
    }

    [AttributeUsage(AttributeTargets.Class)]
    public sealed class CreateAssetMenuAttribute : Attribute
    {
        public string menuName { get; set; }
        public string fileName { get; set; }
        public int order { get; set; }
    }

    public enum RuntimePlatform { OSXEditor, WindowsEditor, LinuxEditor }

    public static class Time
    {
        public static double timeAsDouble { get { return 0; } }
        public static double realtimeSinceStartupAsDouble { get { return 0; } }
    }

    public static class Application
    {
        public static RuntimePlatform platform { get { return RuntimePlatform.LinuxEditor; } }
        public static string persistentDataPath { get { return "."; } }
        public static string unityVersion { get { return "2021.3.0f1"; } }
    }

    public enum TextAnchor { UpperLeft, MiddleLeft, MiddleRight }

    public class GUIStyle
    {
        public GUIStyle() { }
        public GUIStyle(GUIStyle other) { }
        public TextAnchor alignment { get; set; }
        public int fontSize { get; set; }
    }

    public static class GUIStyles { }

    public static class GUILayoutUtility
    {
        public static Rect GetRect(float width, float height) { return new Rect(0, 0, width, height); }
    }

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
        public static Color white { get { return new Color(1f, 1f, 1f); } }
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

    public static class Debug
    {
        public static void Log(object message) { }
        public static void LogWarning(object message) { }
        public static void LogError(object message) { }
    }

    public static class Mathf
    {
        public static int Min(int a, int b) { return Math.Min(a, b); }
        public static float Min(float a, float b) { return Math.Min(a, b); }
        public static float Max(float a, float b) { return Math.Max(a, b); }
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

namespace UnityEngine.TestTools
{
    public interface IPrebuildSetup { void Setup(); }
    public interface IPostBuildCleanup { void Cleanup(); }

    [AttributeUsage(AttributeTargets.Class | AttributeTargets.Method)]
    public sealed class PrebuildSetupAttribute : Attribute { public PrebuildSetupAttribute(Type setupClass) { } }

    [AttributeUsage(AttributeTargets.Class | AttributeTargets.Method)]
    public sealed class PostBuildCleanupAttribute : Attribute { public PostBuildCleanupAttribute(Type cleanupClass) { } }
}

namespace UnityEngine.TestTools.Constraints
{
    public static class Is
    {
        public static NUnit.Framework.Constraints.ConstraintExpression Not { get { return new NUnit.Framework.Constraints.ConstraintExpression(); } }
    }

    public static class ConstraintExtensions
    {
        public static NUnit.Framework.Constraints.Constraint AllocatingGCMemory(this NUnit.Framework.Constraints.ConstraintExpression chain) { return null; }
    }
}

namespace Unity.Collections
{
    public enum Allocator { Invalid, None, Temp, TempJob, Persistent }

    public struct NativeArray<T> : IDisposable where T : struct
    {
        public NativeArray(int length, Allocator allocator) { }
        public int Length { get { return 0; } }
        public T this[int index] { get { return default(T); } set { } }
        public void Dispose() { }
    }

    [AttributeUsage(AttributeTargets.Field)]
    public sealed class ReadOnlyAttribute : Attribute { }

    [AttributeUsage(AttributeTargets.Field)]
    public sealed class NativeDisableParallelForRestrictionAttribute : Attribute { }
}

namespace Unity.Burst
{
    [AttributeUsage(AttributeTargets.Struct | AttributeTargets.Method | AttributeTargets.Class)]
    public sealed class BurstCompileAttribute : Attribute { }
}

namespace Unity.Jobs
{
    public interface IJob { void Execute(); }
    public interface IJobParallelFor { void Execute(int index); }

    public struct JobHandle
    {
        public void Complete() { }
    }

    public static class IJobExtensions
    {
        public static JobHandle Schedule<T>(this T jobData, JobHandle dependsOn = default(JobHandle)) where T : struct, IJob { return default(JobHandle); }
        public static void Run<T>(this T jobData) where T : struct, IJob { jobData.Execute(); }
    }

    public static class IJobParallelForExtensions
    {
        public static JobHandle Schedule<T>(this T jobData, int arrayLength, int innerloopBatchCount, JobHandle dependsOn = default(JobHandle)) where T : struct, IJobParallelFor { return default(JobHandle); }
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
