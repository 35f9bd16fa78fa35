using System;
using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace RankingElo.Native
{
    /// <summary>
    /// Checks, on first use, that the native library loads, and replaces the runtime's bare
    /// <c>DllNotFoundException</c> or <c>EntryPointNotFoundException</c> with one that names the
    /// package's binary this Editor, player or process needs and the platform. Every public
    /// entry point that makes native objects or calls native code without one (the
    /// <c>RankingELO</c> methods, the <c>EloRules</c> and <c>Matchmaker</c> constructors,
    /// <c>RatingPool.FromJson</c> and <c>FromFile</c>) calls <see cref="EnsureLoaded"/> first.
    /// Nothing native is loaded before the game first uses the package (no check when the Editor
    /// loads scripts), so an Editor that never calls it never locks the binary and the package
    /// can be updated or removed freely.
    /// </summary>
    /// <remarks>
    /// <para>A failure is not final: a later call tries again, so the package works once the
    /// binary is fixed. Mono keeps a native import that failed failing for good (and the native
    /// calls of a method compiled while the library was missing), so the entry points keep
    /// their native calls in separate methods compiled only after the check passes, and each
    /// new attempt probes through an import not used before (<see cref="ProbeImports"/>).
    /// After a failure the next attempt waits 1 s, then 2, 4, … at most 60 s; calls in between
    /// throw the same exception at once, without searching the disk again.</para>
    /// </remarks>
    internal static class PluginBinary
    {
        private static volatile bool loaded;
        private static readonly object Gate = new object();
        /// <summary>Failed attempts so far.</summary>
        private static int failures;
        /// <summary>When (<see cref="Stopwatch"/> ticks) the next attempt may probe again.</summary>
        private static long retryAt;
        /// <summary>The last failure's message and kind (true: a stale library).</summary>
        private static string failure;
        private static bool failureIsStale;

        /// <summary>Where the package keeps its binaries, seen from a Unity project.</summary>
        private const string Plugins = "Packages/com.rankingelo.engine/Runtime/Plugins/";

        /// <summary>The longest wait between two attempts after failures, in seconds.</summary>
        private const int MaxRetrySeconds = 60;

        /// <summary>Throws a descriptive exception if the native library cannot be used.</summary>
        /// <exception cref="DllNotFoundException">The library is missing or cannot load here.</exception>
        /// <exception cref="EntryPointNotFoundException">The library is older than this C# code.</exception>
        internal static void EnsureLoaded()
        {
            if (!loaded)
            {
                Load();
            }
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static void Load()
        {
            lock (Gate)
            {
                if (loaded)
                {
                    return;
                }
                if (failure != null && Stopwatch.GetTimestamp() < retryAt)
                {
                    throw Failure(null);
                }
                try
                {
                    ProbeImports.Probe(failures);
                }
                catch (DllNotFoundException error)
                {
                    Failed(MissingMessage(), false);
                    throw Failure(error);
                }
                catch (EntryPointNotFoundException error)
                {
                    Failed(StaleMessage(error.Message), true);
                    throw Failure(error);
                }
                failure = null;
                loaded = true;
            }
        }

        private static void Failed(string message, bool stale)
        {
            failure = message;
            failureIsStale = stale;
            long wait = Math.Min(1L << Math.Min(failures, 6), MaxRetrySeconds);
            retryAt = Stopwatch.GetTimestamp() + wait * Stopwatch.Frequency;
            failures++;
        }

        private static Exception Failure(Exception inner)
        {
            return failureIsStale ? (Exception)new EntryPointNotFoundException(failure, inner) : new DllNotFoundException(failure, inner);
        }

        /// <summary>What to tell a user whose library does not load.</summary>
        /// <returns>A message naming the binary and the platform.</returns>
        internal static string MissingMessage()
        {
            return "Ranking ELO: the native library for this " + Target() + " (" + ExpectedBinary() + ") is missing or cannot be loaded. "
                + "Reinstall the package; if you build the binaries yourself, run `cargo xtask dist` and keep each binary's .meta file "
                + "(its import settings enable it for one platform and CPU).";
        }

        /// <summary>What to tell a user whose library lacks a function this C# calls.</summary>
        /// <param name="detail">The runtime's message.</param>
        /// <returns>A message naming the binary.</returns>
        internal static string StaleMessage(string detail)
        {
            return "Ranking ELO: the native library " + ExpectedBinary() + " for this " + Target() + " is older than the package's C# (" + detail + "): update both together. "
                + "The Unity Editor keeps a loaded native library until it quits: restart it after updating the package.";
        }

        /// <summary>The Editor, player or process this code runs in, with its platform and CPU, in words.</summary>
        /// <returns>For example "Unity Editor (LinuxEditor, X64)" or "process (Linux, X64)".</returns>
        internal static string Target()
        {
#if UNITY_EDITOR
            return "Unity Editor (" + UnityEngine.Application.platform + ", " + Architecture() + ")";
#elif UNITY_5_3_OR_NEWER
            return "player (" + UnityEngine.Application.platform + ", " + Architecture() + ")";
#else
            return "process (" + OperatingSystem() + ", " + Architecture() + ")";
#endif
        }

        /// <summary>The package file this Editor or player loads.</summary>
        /// <returns>A path inside the package, or the file name searched for outside Unity.</returns>
        internal static string ExpectedBinary()
        {
#if UNITY_EDITOR_WIN || UNITY_STANDALONE_WIN
            return Plugins + (IntPtr.Size != 8 ? "Windows (only 64-bit Windows is shipped; this is " + Architecture() + ")"
                : IsArm() ? "Windows/arm64/ranking_elo.dll (Unity 6 or newer, Windows 10 or newer)" : "Windows/x86_64/ranking_elo.dll (Windows 10 or newer)");
#elif UNITY_EDITOR_OSX || UNITY_STANDALONE_OSX
            return Plugins + "macOS/universal/libranking_elo.dylib";
#elif UNITY_EDITOR_LINUX || UNITY_STANDALONE_LINUX
            return Plugins + (IsArm() ? "Linux/arm64/libranking_elo.so (Unity 6.3 or newer)" : "Linux/x86_64/libranking_elo.so");
#elif UNITY_ANDROID
            return Plugins + "Android/" + (IsArm() ? (IntPtr.Size == 8 ? "arm64-v8a" : "armeabi-v7a") : "x86_64") + "/libranking_elo.so";
#elif UNITY_IOS
            return Plugins + "iOS/arm64/libranking_elo.a (device) or iOS/arm64-simulator/libranking_elo.a, linked into the app";
#elif UNITY_WEBGL
            return Plugins + "WebGL/libranking_elo.a (Unity 6 with WebAssembly 2023), linked into the build";
#else
            switch (Environment.OSVersion.Platform)
            {
                case PlatformID.Win32NT: return "ranking_elo.dll (beside the executable or on PATH)";
                case PlatformID.MacOSX: return "libranking_elo.dylib (beside the executable or on DYLD_LIBRARY_PATH)";
                default: return RuntimeInformation.IsOSPlatform(OSPlatform.OSX)
                    ? "libranking_elo.dylib (beside the executable or on DYLD_LIBRARY_PATH)"
                    : "libranking_elo.so (beside the executable or on LD_LIBRARY_PATH)";
            }
#endif
        }

#if UNITY_5_3_OR_NEWER
        private static bool IsArm()
        {
            var architecture = RuntimeInformation.ProcessArchitecture;
            return architecture == System.Runtime.InteropServices.Architecture.Arm || architecture == System.Runtime.InteropServices.Architecture.Arm64;
        }
#else
        private static string OperatingSystem()
        {
            if (RuntimeInformation.IsOSPlatform(OSPlatform.Windows)) return "Windows";
            if (RuntimeInformation.IsOSPlatform(OSPlatform.OSX)) return "macOS";
            if (RuntimeInformation.IsOSPlatform(OSPlatform.Linux)) return "Linux";
            return RuntimeInformation.OSDescription;
        }
#endif

        private static string Architecture()
        {
            return RuntimeInformation.ProcessArchitecture.ToString();
        }

        /// <summary>
        /// The imports that probe the library: <c>elo_version</c> under as many names as
        /// attempts may be made, each called from a method of its own, so that a probe that
        /// failed (which Mono does not try again) leaves the next one untouched. Past the last,
        /// the last is used again (IL2CPP and .NET try a failed import again anyway).
        /// </summary>
        private static class ProbeImports
        {
#if (UNITY_IOS || UNITY_WEBGL) && !UNITY_EDITOR
            private const string Library = "__Internal";
#else
            private const string Library = "ranking_elo";
#endif

            internal static void Probe(int attempt)
            {
                switch (attempt)
                {
                    case 0: P0(); break;
                    case 1: P1(); break;
                    case 2: P2(); break;
                    case 3: P3(); break;
                    case 4: P4(); break;
                    case 5: P5(); break;
                    case 6: P6(); break;
                    case 7: P7(); break;
                    case 8: P8(); break;
                    case 9: P9(); break;
                    case 10: P10(); break;
                    case 11: P11(); break;
                    case 12: P12(); break;
                    case 13: P13(); break;
                    case 14: P14(); break;
                    default: P15(); break;
                }
            }

            [MethodImpl(MethodImplOptions.NoInlining)] private static void P0() { V0(); }
            [MethodImpl(MethodImplOptions.NoInlining)] private static void P1() { V1(); }
            [MethodImpl(MethodImplOptions.NoInlining)] private static void P2() { V2(); }
            [MethodImpl(MethodImplOptions.NoInlining)] private static void P3() { V3(); }
            [MethodImpl(MethodImplOptions.NoInlining)] private static void P4() { V4(); }
            [MethodImpl(MethodImplOptions.NoInlining)] private static void P5() { V5(); }
            [MethodImpl(MethodImplOptions.NoInlining)] private static void P6() { V6(); }
            [MethodImpl(MethodImplOptions.NoInlining)] private static void P7() { V7(); }
            [MethodImpl(MethodImplOptions.NoInlining)] private static void P8() { V8(); }
            [MethodImpl(MethodImplOptions.NoInlining)] private static void P9() { V9(); }
            [MethodImpl(MethodImplOptions.NoInlining)] private static void P10() { V10(); }
            [MethodImpl(MethodImplOptions.NoInlining)] private static void P11() { V11(); }
            [MethodImpl(MethodImplOptions.NoInlining)] private static void P12() { V12(); }
            [MethodImpl(MethodImplOptions.NoInlining)] private static void P13() { V13(); }
            [MethodImpl(MethodImplOptions.NoInlining)] private static void P14() { V14(); }
            [MethodImpl(MethodImplOptions.NoInlining)] private static void P15() { V15(); }

            [DllImport(Library, EntryPoint = "elo_version", CallingConvention = CallingConvention.Cdecl)] private static extern IntPtr V0();
            [DllImport(Library, EntryPoint = "elo_version", CallingConvention = CallingConvention.Cdecl)] private static extern IntPtr V1();
            [DllImport(Library, EntryPoint = "elo_version", CallingConvention = CallingConvention.Cdecl)] private static extern IntPtr V2();
            [DllImport(Library, EntryPoint = "elo_version", CallingConvention = CallingConvention.Cdecl)] private static extern IntPtr V3();
            [DllImport(Library, EntryPoint = "elo_version", CallingConvention = CallingConvention.Cdecl)] private static extern IntPtr V4();
            [DllImport(Library, EntryPoint = "elo_version", CallingConvention = CallingConvention.Cdecl)] private static extern IntPtr V5();
            [DllImport(Library, EntryPoint = "elo_version", CallingConvention = CallingConvention.Cdecl)] private static extern IntPtr V6();
            [DllImport(Library, EntryPoint = "elo_version", CallingConvention = CallingConvention.Cdecl)] private static extern IntPtr V7();
            [DllImport(Library, EntryPoint = "elo_version", CallingConvention = CallingConvention.Cdecl)] private static extern IntPtr V8();
            [DllImport(Library, EntryPoint = "elo_version", CallingConvention = CallingConvention.Cdecl)] private static extern IntPtr V9();
            [DllImport(Library, EntryPoint = "elo_version", CallingConvention = CallingConvention.Cdecl)] private static extern IntPtr V10();
            [DllImport(Library, EntryPoint = "elo_version", CallingConvention = CallingConvention.Cdecl)] private static extern IntPtr V11();
            [DllImport(Library, EntryPoint = "elo_version", CallingConvention = CallingConvention.Cdecl)] private static extern IntPtr V12();
            [DllImport(Library, EntryPoint = "elo_version", CallingConvention = CallingConvention.Cdecl)] private static extern IntPtr V13();
            [DllImport(Library, EntryPoint = "elo_version", CallingConvention = CallingConvention.Cdecl)] private static extern IntPtr V14();
            [DllImport(Library, EntryPoint = "elo_version", CallingConvention = CallingConvention.Cdecl)] private static extern IntPtr V15();
        }
    }
}
