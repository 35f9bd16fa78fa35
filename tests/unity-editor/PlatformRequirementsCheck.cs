// The package's build check (unity/Editor/PlatformRequirements.cs) run on Mono against
// tests/unity-stand-in, whose Player Settings can be set as in the Editor. Compiled by
// `cargo xtask test` (xtask/src/mono.rs, unity_editor_programs) with the package's Editor
// code twice, once with Unity 2021.3's defines and once with Unity 6.3's, and run each time.
// Exit code 0 when every check holds.
//
// Each target the package cannot serve must stop the build with a reason that names what is
// missing, and every target it serves must build: a check that only refused would pass
// these tests while stopping every game's build.
using System;
using RankingElo.Editor;
using UnityEditor;
using UnityEditor.Build;
using UnityEditor.Build.Reporting;

static class PlatformRequirementsCheck
{
    private static int passes, failures;

    private static void Check(bool ok, string what, string problem)
    {
        Console.WriteLine((ok ? "ok   " : "FAIL ") + what + " (" + (problem ?? "builds") + ")");
        if (ok) passes++; else failures++;
    }

    private static void Builds(BuildTarget target, string when)
    {
        string problem = PlatformRequirements.Problem(target);
        Check(problem == null, target + " builds " + when, problem);
    }

    private static void Refused(BuildTarget target, string when, params string[] reasons)
    {
        string problem = PlatformRequirements.Problem(target);
        bool named = problem != null;
        foreach (string reason in reasons)
        {
            named &= problem != null && problem.Contains(reason);
        }
        Check(named, target + " is refused " + when + ", naming " + string.Join(", ", reasons), problem);
    }

    private static void Warned(BuildTarget target, string when, params string[] reasons)
    {
        string problem = PlatformRequirements.Problem(target);
        string warning = PlatformRequirements.Warning(target);
        bool named = problem == null && warning != null;
        foreach (string reason in reasons)
        {
            named &= warning != null && warning.Contains(reason);
        }
        Check(named, target + " builds with a warning " + when + ", naming " + string.Join(", ", reasons), problem ?? warning);
    }

    private static void Quiet(BuildTarget target, string when)
    {
        string problem = PlatformRequirements.Problem(target) ?? PlatformRequirements.Warning(target);
        Check(problem == null, target + " builds without a warning " + when, problem);
    }

    private static void Settings(bool wasm2023, bool threads, iOSSdkVersion sdk, AppleMobileArchitectureSimulator simulator, string standaloneDefines)
    {
        PlayerSettings.WebGL.wasm2023 = wasm2023;
        PlayerSettings.WebGL.threadsSupport = threads;
        PlayerSettings.iOS.sdkVersion = sdk;
        PlayerSettings.iOS.simulatorSdkArchitecture = simulator;
        PlayerSettings.SetScriptingDefineSymbolsForGroup(BuildTargetGroup.Standalone, standaloneDefines);
    }

    private static void Defaults()
    {
        Settings(true, false, iOSSdkVersion.DeviceSDK, AppleMobileArchitectureSimulator.ARM64, "");
    }

    static int Main()
    {
#if UNITY_6000_0_OR_NEWER
        Console.WriteLine("PlatformRequirements as Unity 6 (6000.x) runs it");
#else
        Console.WriteLine("PlatformRequirements as Unity 2021.3 runs it");
#endif
        Defaults();
        Builds(BuildTarget.StandaloneLinux64, "");
        Builds(BuildTarget.StandaloneOSX, "");
        Builds(BuildTarget.Android, "");
        Builds(BuildTarget.iOS, "for the device SDK");
        Refused(BuildTarget.tvOS, "(no binary)", "no tvOS binary");
        Refused(BuildTarget.VisionOS, "(no binary)", "no visionOS binary");
        Refused(BuildTarget.StandaloneWindows, "(no 32-bit binary)", "32-bit");

        // Windows 10: Unity 6's players need it anyway; older Editors' players start on 7 and
        // 8.1, so their builds go on with a warning until the project says Windows 10.
#if UNITY_6000_0_OR_NEWER
        Quiet(BuildTarget.StandaloneWindows64, "(Unity 6's players need Windows 10)");
#else
        Warned(BuildTarget.StandaloneWindows64, "without the Windows 10 define", "Windows 10", "ProcessPrng", PlatformRequirements.Windows10Define);
        Settings(true, false, iOSSdkVersion.DeviceSDK, AppleMobileArchitectureSimulator.ARM64, "GAME_DEMO;" + PlatformRequirements.Windows10Define);
        Quiet(BuildTarget.StandaloneWindows64, "with " + PlatformRequirements.Windows10Define + " among the Standalone defines");
        Settings(true, false, iOSSdkVersion.DeviceSDK, AppleMobileArchitectureSimulator.ARM64, PlatformRequirements.Windows10Define + "_NOT");
        Warned(BuildTarget.StandaloneWindows64, "with a define that only starts like it", "Windows 10");
        Defaults();
#endif
        Quiet(BuildTarget.StandaloneLinux64, "");

        // The iOS simulator: Apple silicon only, and only Unity 6 keeps the simulator slice apart.
        Settings(true, false, iOSSdkVersion.SimulatorSDK, AppleMobileArchitectureSimulator.ARM64, "");
#if UNITY_6000_0_OR_NEWER
        Builds(BuildTarget.iOS, "for the ARM64 simulator");
        Settings(true, false, iOSSdkVersion.SimulatorSDK, AppleMobileArchitectureSimulator.X86_64, "");
        Refused(BuildTarget.iOS, "for the x86_64 simulator", "Apple silicon", "X86_64");
        Settings(true, false, iOSSdkVersion.SimulatorSDK, AppleMobileArchitectureSimulator.Universal, "");
        Refused(BuildTarget.iOS, "for the universal simulator", "Apple silicon", "Universal");
#else
        Refused(BuildTarget.iOS, "for the simulator", "Unity 6", "simulator");
#endif
        Defaults();

        // WebGL: Unity 6 with WebAssembly 2023, and without threads.
#if UNITY_6000_0_OR_NEWER
        Builds(BuildTarget.WebGL, "with WebAssembly 2023 and no threads");
        Settings(false, false, iOSSdkVersion.DeviceSDK, AppleMobileArchitectureSimulator.ARM64, "");
        Refused(BuildTarget.WebGL, "without WebAssembly 2023", "WebAssembly 2023");
        Settings(true, true, iOSSdkVersion.DeviceSDK, AppleMobileArchitectureSimulator.ARM64, "");
        Refused(BuildTarget.WebGL, "with Native C/C++ Multithreading", "Multithreading", "--shared-memory is disallowed");
#else
        Refused(BuildTarget.WebGL, "before Unity 6", "Unity 6", "WebAssembly 2023");
#endif
        Defaults();

        // The build callback itself: it throws BuildFailedException with the reason, or nothing.
        var callback = new PlatformRequirements();
        BuildSummary.StandInPlatform = BuildTarget.tvOS;
        Exception thrown = null;
        try { callback.OnPreprocessBuild(new BuildReport()); } catch (Exception error) { thrown = error; }
        Check(thrown is BuildFailedException && thrown.Message.Contains("tvOS"), "a tvOS build stops in OnPreprocessBuild", thrown == null ? null : thrown.Message);
        BuildSummary.StandInPlatform = BuildTarget.StandaloneLinux64;
        thrown = null;
        try { callback.OnPreprocessBuild(new BuildReport()); } catch (Exception error) { thrown = error; }
        Check(thrown == null, "a Linux build goes on past OnPreprocessBuild", thrown == null ? null : thrown.Message);

        Console.WriteLine(passes + " passed, " + failures + " failed");
        return failures == 0 && passes > 0 ? 0 : 1;
    }
}
