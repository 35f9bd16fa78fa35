using System;
using System.IO;
using NUnit.Framework;

namespace RankingElo.Tests
{
    /// <summary>
    /// Replays the Rust engine's reference vectors (Tests/Runtime/Vectors~) through the C#
    /// wrapper in the Editor (and on Mono): every result must have the same bits as the
    /// engine's. The Play Mode test <c>DeviceReferenceVectorTests</c> does the same on devices.
    /// </summary>
    [TestFixture]
    public class ReferenceVectorTests
    {
        private static string VectorFile()
        {
            string fromEnvironment = Environment.GetEnvironmentVariable("RANKING_ELO_REFERENCE_VECTORS");
            if (!string.IsNullOrEmpty(fromEnvironment)) return fromEnvironment;
            return Path.GetFullPath("Packages/com.rankingelo.engine/Tests/Runtime/Vectors~/RankingEloReferenceVectors.txt");
        }

        [Test]
        public void EveryVectorHasTheRustBits()
        {
            string path = VectorFile();
            Assert.IsTrue(File.Exists(path), "reference vectors not found at " + path);
            Assert.Greater(ReferenceVectorReplay.Replay(File.ReadAllText(path)), 600);
        }

        /// <summary>FIDE's table, the rounding target and rating periods have the Rust bits (a file of their own).</summary>
        [Test]
        public void FideVectorsHaveTheRustBits()
        {
            string path = Path.Combine(Path.GetDirectoryName(VectorFile()), "RankingEloFideVectors.txt");
            Assert.IsTrue(File.Exists(path), "FIDE vectors not found at " + path);
            Assert.Greater(ReferenceVectorReplay.Replay(File.ReadAllText(path)), 500);
        }

        /// <summary>Team and free-for-all ratings equal the values computed independently of the engine (tools/reference/team_vectors.py).</summary>
        [Test]
        public void TeamAndFreeForAllRatingsMatchTheIndependentReference()
        {
            string path = Path.Combine(Path.GetDirectoryName(VectorFile()), "RankingEloTeamVectors.txt");
            Assert.IsTrue(File.Exists(path), "team vectors not found at " + path);
            Assert.GreaterOrEqual(ReferenceVectorReplay.ReplayGroups(File.ReadAllText(path)), 50);
        }
    }
}
