using UnityEditor;
using UnityEditor.Build;
using UnityEditor.Build.Reporting;
using UnityEngine;

namespace RankingElo.Editor
{
    /// <summary>
    /// Stops a player build early, with the reason, when the package's binary for the target
    /// needs more than this Editor or these Player Settings give. (Each binary's import
    /// settings also carry a define constraint, so an older Editor leaves it out of builds;
    /// without this check the build would then fail late, at the native link, with
    /// "undefined symbol: elo_…".)
    /// </summary>
    internal sealed class PlatformRequirements : IPreprocessBuildWithReport
    {
        /// <summary>Runs before other build steps.</summary>
        public int callbackOrder
        {
            get { return 0; }
        }

        /// <summary>Fails the build when <see cref="Problem"/> finds one.</summary>
        /// <param name="report">The build being made.</param>
        public void OnPreprocessBuild(BuildReport report)
        {
            string problem = Problem(report.summary.platform);
            if (problem != null)
            {
                throw new BuildFailedException(problem);
            }
        }

        /// <summary>What keeps the package from working in a build for <paramref name="target"/>, or null.</summary>
        /// <param name="target">The build target.</param>
        /// <returns>A message naming the requirement, or null.</returns>
        internal static string Problem(BuildTarget target)
        {
            if (target != BuildTarget.WebGL)
            {
                return null;
            }
#if UNITY_6000_0_OR_NEWER
            return PlayerSettings.WebGL.wasm2023
                ? null
                : "Ranking ELO's WebGL library unwinds with native WebAssembly exceptions: enable Player Settings > Web > Publishing Settings > WebAssembly 2023.";
#else
            return "Ranking ELO's WebGL library needs Unity 6 (6000.0) or newer with WebAssembly 2023 (native WebAssembly exceptions); this Editor is "
                + Application.unityVersion + ".";
#endif
        }
    }
}
