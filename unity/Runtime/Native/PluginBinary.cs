using System;

namespace RankingElo.Native
{
    /// <summary>
    /// Checks, on first use, that the native library loads, and replaces the runtime's bare
    /// <c>DllNotFoundException</c> or <c>EntryPointNotFoundException</c> with one that names the
    /// package's binary this Editor or player needs. Nothing native is loaded before the game
    /// first uses the package (no check when the Editor loads scripts), so an Editor that never
    /// calls it never locks the binary and the package can be updated or removed freely.
    /// </summary>
    internal static class PluginBinary
    {
        private static volatile bool loaded;

        /// <summary>Where the package keeps its binaries, seen from a Unity project.</summary>
        private const string Plugins = "Packages/com.rankingelo.engine/Runtime/Plugins/";

        /// <summary>Throws a descriptive exception if the native library cannot be used.</summary>
        /// <exception cref="DllNotFoundException">The library is missing or cannot load here.</exception>
        /// <exception cref="EntryPointNotFoundException">The library is older than this C# code.</exception>
        internal static unsafe void EnsureLoaded()
        {
            if (loaded)
            {
                return;
            }
            try
            {
                NativeMethods.elo_version();
            }
            catch (DllNotFoundException error)
            {
                throw new DllNotFoundException(MissingMessage(), error);
            }
            catch (EntryPointNotFoundException error)
            {
                throw new EntryPointNotFoundException(StaleMessage(error.Message), error);
            }
            loaded = true;
        }

        /// <summary>What to tell a user whose library does not load.</summary>
        /// <returns>A message naming the binary.</returns>
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
            return "Ranking ELO: the native library " + ExpectedBinary() + " is older than the package's C# (" + detail + "): update both together. "
                + "The Unity Editor keeps a loaded native library until it quits: restart it after updating the package.";
        }

        /// <summary>The Editor or player this code runs in, in words.</summary>
        /// <returns>For example "Linux Editor".</returns>
        internal static string Target()
        {
#if UNITY_EDITOR
            return "Unity Editor";
#elif UNITY_5_3_OR_NEWER
            return "player (" + UnityEngine.Application.platform + ")";
#else
            return "process";
#endif
        }

        /// <summary>The package file this Editor or player loads.</summary>
        /// <returns>A path inside the package, or the file name searched for outside Unity.</returns>
        internal static string ExpectedBinary()
        {
#if UNITY_EDITOR_WIN || UNITY_STANDALONE_WIN
            return Plugins + (IntPtr.Size == 8 && !IsArm() ? "Windows/x86_64/ranking_elo.dll" : "Windows (only x86_64 is shipped; this is " + Architecture() + ")");
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
                default: return "libranking_elo.so (beside the executable or on LD_LIBRARY_PATH)";
            }
#endif
        }

#if UNITY_5_3_OR_NEWER
        private static bool IsArm()
        {
            var architecture = System.Runtime.InteropServices.RuntimeInformation.ProcessArchitecture;
            return architecture == System.Runtime.InteropServices.Architecture.Arm || architecture == System.Runtime.InteropServices.Architecture.Arm64;
        }

        private static string Architecture()
        {
            return System.Runtime.InteropServices.RuntimeInformation.ProcessArchitecture.ToString();
        }
#endif
    }
}
