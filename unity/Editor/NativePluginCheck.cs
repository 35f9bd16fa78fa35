using System;
using RankingElo.Native;
using UnityEditor;
using UnityEngine;

namespace RankingElo.Editor
{
    /// <summary>
    /// "Tools > Ranking ELO > Check Native Library": loads this Editor's native library of the
    /// package and says which binary is missing, stale or broken. Nothing runs when the Editor
    /// loads scripts: loading a native library there would lock it (on Windows the package
    /// could then not be updated or removed until the Editor quits). The runtime checks the
    /// same way on first use and names the binary in the exception it throws.
    /// </summary>
    internal static class NativePluginCheck
    {
        [MenuItem("Tools/Ranking ELO/Check Native Library")]
        private static void CheckFromMenu()
        {
            string problem = Check();
            if (problem == null)
            {
                Debug.Log("Ranking ELO: " + PluginBinary.ExpectedBinary() + " loads and answers.");
            }
            else
            {
                Debug.LogError(problem);
            }
        }

        /// <summary>The problem with the native library, or null when it loads and answers.</summary>
        /// <returns>A message naming the expected binary, or null.</returns>
        internal static string Check()
        {
            try
            {
                PluginBinary.EnsureLoaded();
                float probability = RankingELO.GetProbabilityWinning(1500f, 1500f);
                return probability == 0.5f ? null : "Ranking ELO: " + PluginBinary.ExpectedBinary() + " answered " + probability + " for two equal ratings (expected 0.5): reinstall the package";
            }
            catch (TypeInitializationException error)
            {
                return error.InnerException != null ? error.InnerException.Message : error.Message;
            }
            catch (DllNotFoundException error)
            {
                return error.Message;
            }
            catch (EntryPointNotFoundException error)
            {
                return error.Message;
            }
        }
    }
}
