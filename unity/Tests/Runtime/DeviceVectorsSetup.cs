#if UNITY_5_3_OR_NEWER
using System.IO;
using UnityEngine.TestTools;

namespace RankingElo.Tests
{
    /// <summary>
    /// Puts the reference vectors where a test player can load them, only for the test run:
    /// before Unity builds (or enters Play Mode for) the Play Mode tests it copies
    /// <c>Tests/Runtime/Vectors~</c> into <c>Assets/RankingEloTestVectors/Resources</c>, and
    /// afterwards deletes that folder again. The package itself has no <c>Resources</c> folder,
    /// so no game's player build carries the vectors.
    /// </summary>
    public class DeviceVectorsSetup : IPrebuildSetup, IPostBuildCleanup
    {
        /// <summary>The temporary folder in the project.</summary>
        public const string Folder = "Assets/RankingEloTestVectors";

        /// <summary>Copies the vectors into the project's temporary <c>Resources</c> folder.</summary>
        public void Setup()
        {
#if UNITY_EDITOR
            string resources = Path.Combine(Folder, "Resources");
            Directory.CreateDirectory(resources);
            foreach (string name in new[] { ReferenceVectorReplay.ResourceName, ReferenceVectorReplay.TeamResourceName, ReferenceVectorReplay.FideResourceName })
            {
                string source = Path.GetFullPath("Packages/com.rankingelo.engine/Tests/Runtime/Vectors~/" + name + ".txt");
                File.Copy(source, Path.Combine(resources, name + ".txt"), true);
            }
            UnityEditor.AssetDatabase.Refresh();
#endif
        }

        /// <summary>Deletes the temporary folder.</summary>
        public void Cleanup()
        {
#if UNITY_EDITOR
            UnityEditor.AssetDatabase.DeleteAsset(Folder);
#endif
        }
    }
}
#endif
