// NUnit tests of the League Demo sample's simulation code on Mono. They live outside the
// Unity package because the sample (Samples~) is not referenced by the package's test
// assembly inside Unity; `cargo xtask test` compiles them with the sample's Population.cs.
using NUnit.Framework;
using RankingElo.Samples;

namespace RankingElo.Tests.Mono
{
    /// <summary>Tests of <see cref="Population"/>.</summary>
    public class SampleTests
    {
        /// <summary>
        /// Audit finding: with two players whose ratings drift apart further than the widest
        /// matchmaking window, no pair can ever form; PlayMatches looped forever (seeds 2, 3,
        /// 4 reproduced it), hanging the Editor. It must return with what it could play.
        /// (One test over the seeds, not [TestCase]s: NUnit 2.6 builds those with code that
        /// Mono's full-AOT mode, the stand-in for IL2CPP, cannot run.)
        /// </summary>
        [Test]
        public void PlayMatchesReturnsWhenNobodyCanMeet()
        {
            foreach (int seed in new[] { 2, 3, 4 })
            {
                var population = new Population(2, seed);
                try
                {
                    int played = population.PlayMatches(5000);
                    Assert.That(played, Is.LessThan(5000), "seed " + seed + ": the two players' ratings should drift out of reach");
                    Assert.That(played, Is.EqualTo(population.MatchesPlayed), "seed " + seed);
                    Assert.That(population.PlayMatch(), Is.False, "seed " + seed + ": nobody can meet any more");
                }
                finally
                {
                    population.Dispose();
                }
            }
        }

        /// <summary>The sample's view refresh (what its OnGUI reads) allocates nothing.</summary>
        [Test]
        public void FillingTheViewAllocatesNothing()
        {
            var population = new Population(40, 1);
            try
            {
                population.PlayMatches(100);
                var ratings = new float[40];
                var leagues = new int[40];
                var ranking = new int[15];
                var counts = new int[4];
                population.Fill(ratings, leagues, ranking, counts);
                long before = System.GC.GetAllocatedBytesForCurrentThread();
                int ranked = 0;
                for (int i = 0; i < 100; i++) ranked += population.Fill(ratings, leagues, ranking, counts);
                Assert.AreEqual(0, System.GC.GetAllocatedBytesForCurrentThread() - before);
                Assert.AreEqual(1500, ranked);
                Assert.AreEqual(40, counts[0] + counts[1] + counts[2] + counts[3]);
                Assert.AreEqual(population.Ranking()[0], ranking[0]);
            }
            finally
            {
                population.Dispose();
            }
        }

        /// <summary>A large population plays every match asked for.</summary>
        [Test]
        public void PlayMatchesPlaysAllWhenPairsForm()
        {
            var population = new Population(100, 1);
            try
            {
                Assert.That(population.PlayMatches(500), Is.EqualTo(500));
            }
            finally
            {
                population.Dispose();
            }
        }

        [Test]
        public void SeasonsEndWithRecordsAndReportLeagueChanges()
        {
            using (var population = new Population(40, 2025))
            {
                Assert.AreEqual(400, population.PlayMatches(400));
                Assert.IsNotNull(population.LastLeagueChange, "400 matches move somebody across a league bound");
                StringAssert.IsMatch("^Player [0-9]+ (promoted|demoted) to (Bronze|Silver|Gold|Platinum)$", population.LastLeagueChange);
                SeasonRecord[] records = population.EndSeason();
                Assert.AreEqual(40, records.Length);
                uint games = 0;
                foreach (SeasonRecord record in records) games += record.Games;
                Assert.AreEqual(800u, games, "two players per match");
                Assert.AreEqual(1, population.SeasonsEnded);
                Assert.IsNull(population.LastLeagueChange);
                Assert.AreEqual(400, population.PlayMatches(400), "the queue works after the reset");
            }
        }
    }
}
