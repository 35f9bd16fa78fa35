// What a game meets when the native library is missing, and after it is fixed, run by
// `cargo xtask test` (xtask/src/mono.rs, load_failures) on Mono in a folder without the
// library: once with the package built outside Unity, once in its Unity Editor flavour
// (against tests/unity-stand-in).
//
// 1. Every public entry point throws DllNotFoundException (not a TypeInitializationException)
//    whose message names the binary and the platform; a second call says the same at once.
//    In the Unity flavour, the rules asset's OnValidate (which Unity runs when it loads the
//    asset) runs no native code: it would throw here.
// 2. The library is copied beside the program (the fix) and, once the package's wait after a
//    failure has passed, every entry point works, the ones that failed included.
//
// Usage: mono LoadFailure.exe PATH_OF_THE_NATIVE_LIBRARY. Exit code 0 when every check holds.
using System;
using System.Collections.Generic;
using System.IO;
using System.Reflection;
using System.Runtime.InteropServices;
using System.Threading;
using RankingElo;

static class LoadFailure
{
    private static int passes, failures;

    private static void Check(bool ok, string what)
    {
        Console.WriteLine((ok ? "ok   " : "FAIL ") + what);
        if (ok)
        {
            passes++;
        }
        else
        {
            failures++;
        }
    }

    private sealed class EntryPoint
    {
        internal readonly string Name;
        internal readonly Func<object> Call;

        internal EntryPoint(string name, Func<object> call)
        {
            Name = name;
            Call = call;
        }
    }

    private static int Main(string[] args)
    {
        string library = args[0];
        string folder = AppDomain.CurrentDomain.BaseDirectory;
        string copy = Path.Combine(folder, Path.GetFileName(library));
        File.Delete(copy);
        string saveFile = Path.Combine(folder, "pool.json");
        string save = null;
        var entryPoints = new List<EntryPoint>
        {
            new EntryPoint("RankingELO.GetProbabilityWinning", () => RankingELO.GetProbabilityWinning(1700f, 1300f)),
            new EntryPoint("RankingELO.UpdatePlayerRankings(bool)", () => RankingELO.UpdatePlayerRankings(1700f, 1300f, 32f, false)),
            new EntryPoint("RankingELO.UpdatePlayerRankings(MatchResult)", () => RankingELO.UpdatePlayerRankings(1500f, 1600f, 32f, MatchResult.Draw)),
            new EntryPoint("RankingELO.UpdatePlayerRankings(int)", () => RankingELO.UpdatePlayerRankings(1500f, 1600f, 32f, 1)),
            new EntryPoint("RankingELO.UpdatePlayerRankings(float)", () => RankingELO.UpdatePlayerRankings(1500f, 1600f, 32f, 0.6f)),
            new EntryPoint("RankingELO.UpdatePlayerRankings(float[] in place)", () =>
            {
                float[] a = { 1700f }, b = { 1300f }, s = { 1f };
                RankingELO.UpdatePlayerRankings(a, b, s, 32f);
                return a[0];
            }),
            new EntryPoint("RankingELO.UpdatePlayerRankings(float[] into outputs)", () =>
            {
                float[] a = { 1700f }, b = { 1300f }, s = { 1f }, outA = new float[1], outB = new float[1];
                RankingELO.UpdatePlayerRankings(a, b, s, 32f, outA, outB);
                return outA[0];
            }),
            new EntryPoint("new EloRules()", () => { using (new EloRules()) { return null; } }),
            new EntryPoint("new EloRules(EloSettings)", () => { using (new EloRules(new EloSettings())) { return null; } }),
            new EntryPoint("EloRules.FromJson", () => { using (EloRules.FromJson("{}")) { return null; } }),
            new EntryPoint("EloSettings.Validate", () => new EloSettings().Validate()),
            new EntryPoint("RulesPreview.Run", () => RulesPreview.Run(new EloSettings(), 20, 40, 1)),
            new EntryPoint("new Matchmaker", () => { using (new Matchmaker(MatchmakerSettings.Default)) { return null; } }),
            new EntryPoint("RatingPool.FromJson", () => { using (RatingPool.FromJson(save ?? "{}")) { return null; } }),
            new EntryPoint("RatingPool.FromFile", () => { using (RatingPool.FromFile(saveFile)) { return null; } }),
        };

        string platform = RuntimeInformation.ProcessArchitecture.ToString();
#if UNITY_EDITOR
        string binary = "Packages/com.rankingelo.engine/Runtime/Plugins/Linux/x86_64/libranking_elo.so";
        string target = "Unity Editor (LinuxEditor, " + platform + ")";
        var asset = new EloRulesAsset();
        MethodInfo onValidate = typeof(EloRulesAsset).GetMethod("OnValidate", BindingFlags.Instance | BindingFlags.NonPublic);
        Check(onValidate != null, "EloRulesAsset has OnValidate");
#else
        string binary = "libranking_elo.so";
        string target = "process (Linux, " + platform + ")";
#endif

        Console.WriteLine("--- without the native library (" + binary + ")");
        foreach (var entry in entryPoints)
        {
            for (int attempt = 1; attempt <= 2; attempt++)
            {
                Exception thrown = null;
                try
                {
                    entry.Call();
                }
                catch (Exception error)
                {
                    thrown = error;
                }
                string message = thrown == null ? "" : thrown.Message;
                bool named = thrown is DllNotFoundException && message.Contains(binary) && message.Contains(target);
                Check(named, entry.Name + " (call " + attempt + ") throws DllNotFoundException naming " + binary + " and " + target
                    + (named ? "" : ": got " + (thrown == null ? "no exception" : thrown.GetType().Name + ": " + message)));
            }
        }
#if UNITY_EDITOR
        // What Unity does when it loads a rules asset: no native code may run.
        try
        {
            onValidate.Invoke(asset, null);
            Check(true, "EloRulesAsset.OnValidate runs no native code (the asset loads without the library)");
        }
        catch (TargetInvocationException error)
        {
            Check(false, "EloRulesAsset.OnValidate ran native code: " + error.InnerException.GetType().Name + ": " + error.InnerException.Message);
        }
        try
        {
            Check(asset.ValidationMessage == "never", "the Inspector's ValidationMessage needs the library");
        }
        catch (DllNotFoundException error)
        {
            Check(error.Message.Contains(binary), "the Inspector's ValidationMessage throws DllNotFoundException naming " + binary);
        }
#endif

        Console.WriteLine("--- the library copied beside the program (the fix)");
        File.Copy(library, copy);
        // The package waits a second before it searches again after a first failure.
        Thread.Sleep(1200);
        try
        {
            using (var rules = new EloRules())
            using (var pool = new RatingPool(rules))
            {
                pool.AddPlayers(2);
                pool.Apply(0, 1, MatchResult.Win);
                save = pool.ToJson();
                pool.Save(saveFile);
            }
            Check(true, "a pool is made and saved");
        }
        catch (Exception error)
        {
            Check(false, "a pool after the fix: " + error.GetType().Name + ": " + error.Message);
        }
        foreach (var entry in entryPoints)
        {
            try
            {
                object result = entry.Call();
                Check(true, entry.Name + " works" + (result == null ? "" : " (" + result + ")"));
            }
            catch (Exception error)
            {
                Check(false, entry.Name + " after the fix: " + error.GetType().Name + ": " + error.Message);
            }
        }
        Check(Math.Abs(RankingELO.GetProbabilityWinning(1700f, 1300f) - 10f / 11f) < 1e-6f, "the engine answers: P(1700 beats 1300) = 10/11");
#if UNITY_EDITOR
        Check(asset.ValidationMessage == null, "the default rules asset is valid");
        asset.Settings.VictoryBonus = -1;
        onValidate.Invoke(asset, null);
        string invalid = asset.ValidationMessage;
        Check(invalid != null && invalid.Contains("victory_bonus"), "after an edit the asset gives the engine's message: " + invalid);
#endif
        Console.WriteLine(passes + " passed, " + failures + " failed");
        return failures == 0 ? 0 : 1;
    }
}
