using System;
using UnityEditor;
using UnityEditor.Build;
using UnityEditor.Build.Reporting;
using UnityEngine;

namespace RankingElo.Editor
{
    /// <summary>
    /// Stops a player build early, with the reason, when the package has no binary for the
    /// target or its binary needs more than this Editor or these Player Settings give. Without
    /// it such a build would succeed and fail on the player's machine (a
    /// <c>DllNotFoundException</c>, or a DLL Windows cannot load), or fail late, at the native
    /// link ("undefined symbol: elo_…", "--shared-memory is disallowed by ranking_elo.o").
    /// The manual's Platforms section says the same, target by target.
    /// </summary>
    internal sealed class PlatformRequirements : IPreprocessBuildWithReport
    {
        /// <summary>
        /// The scripting define (Player Settings &gt; Standalone) by which a project built with an
        /// Editor older than Unity 6 says its Windows players run on Windows 10 or newer only,
        /// which silences the build's warning about Windows 7 and 8.1.
        /// </summary>
        internal const string Windows10Define = "RANKING_ELO_WINDOWS_10_OR_NEWER";

        /// <summary>Runs before other build steps.</summary>
        public int callbackOrder
        {
            get { return 0; }
        }

        /// <summary>
        /// Fails the build when <see cref="Problem"/> finds one; logs a warning when
        /// <see cref="Warning"/> finds one (the build goes on).
        /// </summary>
        /// <param name="report">The build being made.</param>
        public void OnPreprocessBuild(BuildReport report)
        {
            string problem = Problem(report.summary.platform);
            if (problem != null)
            {
                throw new BuildFailedException(problem);
            }
            string warning = Warning(report.summary.platform);
            if (warning != null)
            {
                Debug.LogWarning(warning);
            }
        }

        /// <summary>
        /// What a build for <paramref name="target"/> should know but need not stop for, or
        /// null: the players of Unity Editors before 6 start on Windows 7 and 8.1, where the
        /// Windows DLL cannot load (most games no longer support them, so this warns instead
        /// of failing every such build; <see cref="Windows10Define"/> says the game is
        /// Windows 10 or newer and silences it).
        /// </summary>
        /// <param name="target">The build target.</param>
        /// <returns>A message, or null.</returns>
        internal static string Warning(BuildTarget target)
        {
            switch (target)
            {
                case BuildTarget.StandaloneWindows64:
                    return WindowsWarning();
                case BuildTarget.iOS:
                    return PrivacyManifestWarning(Application.unityVersion);
                default:
                    return null;
            }
        }

        /// <summary>
        /// Unity adds the privacy manifests that plugins ship (the package's
        /// <c>Plugins/iOS/PrivacyInfo.xcprivacy</c>) to the Xcode project from 2021.3.35f1 and
        /// 2022.3.18f1 on; an iOS build with an older Editor leaves it out, and the App Store
        /// may refuse an app whose library calls <c>stat</c> without declaring it.
        /// </summary>
        /// <param name="unityVersion">The Editor's version, as <c>Application.unityVersion</c> gives it.</param>
        /// <returns>A message, or null for an Editor that adds the manifest.</returns>
        internal static string PrivacyManifestWarning(string unityVersion)
        {
            string[] parts = (unityVersion ?? "").Split('.');
            int year, minor, patch;
            if (parts.Length < 3 || !int.TryParse(parts[0], out year) || !int.TryParse(parts[1], out minor) || !int.TryParse(LeadingDigits(parts[2]), out patch))
            {
                return null;
            }
            bool leftOut = (year == 2021 && patch < 35) || (year == 2022 && (minor < 3 || patch < 18));
            if (!leftOut)
            {
                return null;
            }
            return "Unity " + unityVersion + " does not add plugins' privacy manifests to the Xcode project (Unity does from 2021.3.35f1 and 2022.3.18f1): "
                + "Ranking ELO's iOS library calls stat and fstat (file timestamp APIs in Apple's required-reason list), and the App Store may refuse the app without its manifest. "
                + "Update the Editor, or add Packages/com.rankingelo.engine/Runtime/Plugins/iOS/PrivacyInfo.xcprivacy to the Xcode project's UnityFramework target (Build Phases > Copy Bundle Resources).";
        }

        private static string LeadingDigits(string text)
        {
            int end = 0;
            while (end < text.Length && char.IsDigit(text[end])) end++;
            return text.Substring(0, end);
        }

        /// <summary>What keeps the package from working in a build for <paramref name="target"/>, or null.</summary>
        /// <param name="target">The build target.</param>
        /// <returns>A message naming the requirement, or null.</returns>
        internal static string Problem(BuildTarget target)
        {
            // By name: BuildTarget.VisionOS and the consoles' targets do not exist in every
            // Editor the package supports.
            string name = target.ToString();
            if (name == "tvOS" || name == "VisionOS")
            {
                return "Ranking ELO has no " + (name == "tvOS" ? "tvOS" : "visionOS")
                    + " binary (its iOS library is built for iOS only and would not link); it ships native code for " + Shipped + ".";
            }
            if (Array.IndexOf(Served, name) < 0)
            {
                // Universal Windows Platform, the consoles and any other target: no binary, so
                // the build would succeed and the first call throw DllNotFoundException.
                return "Ranking ELO has no binary for " + name + " (the first call would throw DllNotFoundException); it ships native code for " + Shipped + ".";
            }
            switch (target)
            {
                case BuildTarget.StandaloneWindows:
                    return "Ranking ELO has no 32-bit Windows binary: build for Windows 64-bit (x64, or Arm64 with Unity 6).";
                case BuildTarget.Android:
                    return AndroidProblem();
                case BuildTarget.iOS:
                    return IosProblem();
                case BuildTarget.WebGL:
                    return WebProblem();
                default:
                    return null;
            }
        }

        /// <summary>The platforms the package has binaries for, in words.</summary>
        private const string Shipped = "Windows (x64, Arm64), macOS, Linux, Android (arm64-v8a, armeabi-v7a, x86_64), iOS and the Web";

        /// <summary>
        /// The build targets the package has a binary for (or refuses with a reason of their
        /// own), by name; every other target is refused.
        /// </summary>
        private static readonly string[] Served =
        {
            "StandaloneWindows64", "StandaloneWindows", "StandaloneOSX", "StandaloneLinux64", "LinuxHeadlessSimulation", "Android", "iOS", "WebGL",
        };

        /// <summary>
        /// The Android libraries are for arm64-v8a, armeabi-v7a and x86_64: a build that also
        /// targets 32-bit x86 (Chrome OS) would throw <c>DllNotFoundException</c> there.
        /// </summary>
        private static string AndroidProblem()
        {
            // By name: AndroidArchitecture.X86 is not in every Editor the package supports.
            foreach (string architecture in PlayerSettings.Android.targetArchitectures.ToString().Split(','))
            {
                string trimmed = architecture.Trim();
                if (trimmed == "X86" || trimmed == "All")
                {
                    return "Ranking ELO has no 32-bit x86 Android library: untick x86 in Player Settings > Android > Other Settings > Target Architectures (arm64-v8a, armeabi-v7a and x86_64 are shipped).";
                }
            }
            return null;
        }

        /// <summary>
        /// The Windows DLLs import <c>ProcessPrng</c> and <c>WaitOnAddress</c>, so Windows
        /// loads them from Windows 10 on; Unity 6's Windows players need Windows 10 too, older
        /// Editors' players still start on Windows 7 and 8.1.
        /// </summary>
        private static string WindowsWarning()
        {
#if UNITY_6000_0_OR_NEWER
            return null;
#else
            string defines = PlayerSettings.GetScriptingDefineSymbolsForGroup(BuildTargetGroup.Standalone) ?? "";
            foreach (string define in defines.Split(';', ',', ' '))
            {
                if (define.Trim() == Windows10Define)
                {
                    return null;
                }
            }
            return "Ranking ELO's Windows DLL needs Windows 10 or newer (it imports ProcessPrng and WaitOnAddress); players of Unity "
                + Application.unityVersion + " also start on Windows 7 and 8.1, where the DLL cannot load (a DllNotFoundException at the first call). If your game supports only Windows 10 and newer, add "
                + Windows10Define + " to Player Settings > Standalone > Scripting Define Symbols to say so and silence this warning.";
#endif
        }

        /// <summary>The simulator library is for Apple silicon only and needs Unity 6's ARM64 Simulator CPU.</summary>
        private static string IosProblem()
        {
            if (PlayerSettings.iOS.sdkVersion != iOSSdkVersion.SimulatorSDK)
            {
                return null;
            }
#if UNITY_6000_0_OR_NEWER
            return PlayerSettings.iOS.simulatorSdkArchitecture == AppleMobileArchitectureSimulator.ARM64
                ? null
                : "Ranking ELO's iOS simulator library is for Apple silicon (arm64) only: set Player Settings > iOS > Target SDK to Simulator SDK with Simulator Architecture ARM64 (this project builds "
                    + PlayerSettings.iOS.simulatorSdkArchitecture + ").";
#else
            return "Ranking ELO's iOS simulator library needs Unity 6 (6000.0) or newer, the first whose plugin importer tells an ARM64 Simulator library apart from the device library; this Editor is "
                + Application.unityVersion + ". Build for the device SDK, or use Unity 6.";
#endif
        }

        /// <summary>
        /// The WebGL library unwinds with native WebAssembly exceptions and is compiled without
        /// WebAssembly threads (atomics), which a multithreaded build's shared memory needs.
        /// </summary>
        private static string WebProblem()
        {
#if UNITY_6000_0_OR_NEWER
            if (!PlayerSettings.WebGL.wasm2023)
            {
                return "Ranking ELO's WebGL library unwinds with native WebAssembly exceptions: enable Player Settings > Web > Publishing Settings > WebAssembly 2023.";
            }
            if (PlayerSettings.WebGL.threadsSupport)
            {
                return "Ranking ELO's WebGL library is compiled without WebAssembly threads (atomics), so a build with Native C/C++ Multithreading would fail at the link "
                    + "(wasm-ld: \"--shared-memory is disallowed by ranking_elo.o\"): turn off Player Settings > Web > Publishing Settings > Enable Native C/C++ Multithreading.";
            }
            return null;
#else
            return "Ranking ELO's WebGL library needs Unity 6 (6000.0) or newer with WebAssembly 2023 (native WebAssembly exceptions); this Editor is "
                + Application.unityVersion + ".";
#endif
        }
    }
}
