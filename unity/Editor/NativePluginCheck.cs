using System;
using UnityEditor;
using UnityEngine;

namespace RankingElo.Editor
{
    /// <summary>
    /// When the Editor loads scripts, checks that this platform's native library of the
    /// package loads, and says which binary is missing or broken instead of leaving a bare
    /// <c>DllNotFoundException</c> for the first rating call.
    /// </summary>
    [InitializeOnLoad]
    internal static class NativePluginCheck
    {
        static NativePluginCheck()
        {
            string problem = Check();
            if (problem != null)
            {
                Debug.LogError("Ranking ELO: " + problem);
            }
        }

        /// <summary>The problem with the native library, or null when it loads and answers.</summary>
        /// <returns>A message naming the expected binary, or null.</returns>
        internal static string Check()
        {
            try
            {
                float probability = RankingELO.GetProbabilityWinning(1500f, 1500f);
                return probability == 0.5f ? null : "the native library answered " + probability + " for two equal ratings (expected 0.5): reinstall the package";
            }
            catch (DllNotFoundException)
            {
                return "the native library for this Editor (" + ExpectedBinary() + ") is missing or cannot be loaded. "
                    + "Reinstall the package, or if you build it yourself run `cargo xtask dist` and keep the binary's .meta file.";
            }
            catch (EntryPointNotFoundException error)
            {
                return "the native library " + ExpectedBinary() + " is older than the package's C# (" + error.Message + "): update both together "
                    + "(the Editor keeps a loaded native library until it restarts: restart it after updating).";
            }
        }

        private static string ExpectedBinary()
        {
            switch (Application.platform)
            {
                case RuntimePlatform.WindowsEditor: return "Runtime/Plugins/Windows/x86_64/ranking_elo.dll";
                case RuntimePlatform.OSXEditor: return "Runtime/Plugins/macOS/universal/libranking_elo.dylib";
                default: return "Runtime/Plugins/Linux/x86_64/libranking_elo.so";
            }
        }
    }
}
