using NUnit.Framework;
using RankingElo.Burst;

namespace RankingElo.Tests
{
    /// <summary>
    /// The Burst-callable entry points (<see cref="EloBurst"/>) give the same bits as the managed
    /// API and report errors as result codes. (Burst compilation itself needs the Unity Editor;
    /// these run the same declarations on Mono.)
    /// </summary>
    [TestFixture]
    public unsafe class BurstSurfaceTests
    {
        [Test]
        public void RateBatchMatchesTheManagedBatchBitForBit()
        {
            const int n = 257;
            var a = new float[n];
            var b = new float[n];
            var s = new float[n];
            var random = new System.Random(7);
            for (int i = 0; i < n; i++)
            {
                a[i] = 800f + 1600f * (float)random.NextDouble();
                b[i] = 800f + 1600f * (float)random.NextDouble();
                s[i] = (float)random.NextDouble();
            }
            var managedA = (float[])a.Clone();
            var managedB = (float[])b.Clone();
            RankingELO.UpdatePlayerRankings(managedA, managedB, s, 32f);
            using (var rules = new EloRules())
            {
                EloRulesHandle handle = rules.BurstHandle;
                Assert.IsTrue(handle.IsCreated);
                var k = new float[n];
                for (int i = 0; i < n; i++) k[i] = 32f;
                fixed (float* pa = a, pb = b, ps = s, pk = k)
                {
                    Assert.AreEqual(EloBurst.Ok, EloBurst.RateBatch(handle, pa, pb, ps, pk, n, pa, pb));
                }
            }
            for (int i = 0; i < n; i++)
            {
                Assert.AreEqual(RankingELOTests.Bits(managedA[i]), RankingELOTests.Bits(a[i]), "A " + i);
                Assert.AreEqual(RankingELOTests.Bits(managedB[i]), RankingELOTests.Bits(b[i]), "B " + i);
            }
        }

        [Test]
        public void PoolEntryPointsMatchTheManagedPool()
        {
            using (var rules = new EloRules())
            using (var managed = new RatingPool(rules))
            using (var burst = new RatingPool(rules))
            {
                managed.AddPlayers(8);
                burst.AddPlayers(8);
                int[] a = { 0, 2, 4, 0 };
                int[] b = { 1, 3, 5, 7 };
                float[] s = { 1f, 0.5f, 0f, 1f };
                managed.Apply(a, b, s);
                var ratings = new float[8];
                var leagues = new int[8];
                EloPoolHandle handle = burst.BurstHandle;
                fixed (int* pa = a, pb = b, pl = leagues)
                fixed (float* ps = s, pr = ratings)
                {
                    Assert.AreEqual(EloBurst.Ok, EloBurst.PoolApply(handle, pa, pb, ps, a.Length, null, null, null));
                    Assert.AreEqual(EloBurst.Ok, EloBurst.PoolGetRatings(handle, 0, 8, pr));
                    Assert.AreEqual(EloBurst.Ok, EloBurst.PoolGetLeagues(handle, 0, 8, pl));
                    // An index out of range is a code, not an exception, and changes nothing.
                    int bad = 99;
                    Assert.AreEqual((uint)EloError.IndexOutOfRange, EloBurst.PoolApply(handle, pa, &bad, ps, 1, null, null, null));
                    StringAssert.Contains("out of range", EloBurst.LastErrorMessage());
                }
                var expected = new float[8];
                managed.GetRatings(expected);
                for (int i = 0; i < 8; i++) Assert.AreEqual(RankingELOTests.Bits(expected[i]), RankingELOTests.Bits(ratings[i]), "player " + i);
            }
        }

        [Test]
        public void SeasonEntryPointsMatchTheManagedPool()
        {
            var settings = new EloSettings { DemotionMargin = 10 };
            settings.Leagues.Add(new League("Low", 0f, 32));
            settings.Leagues.Add(new League("High", 1510f, 32));
            settings.Decay.GraceDays = 0;
            settings.Decay.PointsPerDay = 5;
            using (var rules = new EloRules(settings))
            using (var managed = new RatingPool(rules))
            using (var burst = new RatingPool(rules))
            {
                managed.AddPlayers(4);
                burst.AddPlayers(4);
                int[] a = { 0, 2 };
                int[] b = { 1, 3 };
                float[] s = { 1f, 1f };
                managed.Clock = 100;
                var managedEvents = managed.ApplyWithEvents(a, b, s);
                int managedDecayed = managed.ApplyDecay(100 + 2 * 86400.0);
                var events = new LeagueChange[4];
                int count, decayed;
                EloPoolHandle handle = burst.BurstHandle;
                fixed (int* pa = a, pb = b)
                fixed (float* ps = s)
                fixed (LeagueChange* pe = events)
                {
                    Assert.AreEqual(EloBurst.Ok, EloBurst.PoolSetClock(handle, 100));
                    Assert.AreEqual(EloBurst.Ok, EloBurst.PoolApplyEvents(handle, pa, pb, ps, 2, pe, 4, &count));
                    Assert.AreEqual(managedEvents.Length, count);
                    for (int i = 0; i < count; i++) Assert.AreEqual(managedEvents[i].Player, events[i].Player);
                    Assert.AreEqual(EloBurst.Ok, EloBurst.PoolApplyDecay(handle, 100 + 2 * 86400.0, null, 0, null, &decayed));
                    Assert.AreEqual(managedDecayed, decayed);
                    Assert.AreEqual((uint)EloError.NotFinite, EloBurst.PoolSetClock(handle, double.NaN));
                }
                for (int i = 0; i < 4; i++) Assert.AreEqual(RankingELOTests.Bits(managed[i].Rating), RankingELOTests.Bits(burst[i].Rating), "player " + i);
            }
        }

        [Test]
        public void GroupEntryPointsMatchTheManagedRules()
        {
            using (var rules = new EloRules())
            {
                var managed = new[] { new PlayerState(1500f), new PlayerState(1620f), new PlayerState(1400f), new PlayerState(1480f) };
                var burst = (PlayerState[])managed.Clone();
                rules.RateTeams(managed, 2, 1f, System.ReadOnlySpan<float>.Empty);
                int[] places = { 2, 1, 4, 3 };
                fixed (PlayerState* p = burst)
                fixed (int* pl = places)
                {
                    Assert.AreEqual(EloBurst.Ok, EloBurst.RateTeams(rules.BurstHandle, p, 2, 2, null, 1f));
                    for (int i = 0; i < 4; i++) Assert.AreEqual(RankingELOTests.Bits(managed[i].Rating), RankingELOTests.Bits(burst[i].Rating), "team member " + i);
                    rules.RatePlacements(managed, places);
                    Assert.AreEqual(EloBurst.Ok, EloBurst.RatePlacements(rules.BurstHandle, p, 4, pl));
                    for (int i = 0; i < 4; i++) Assert.AreEqual(RankingELOTests.Bits(managed[i].Rating), RankingELOTests.Bits(burst[i].Rating), "entrant " + i);
                    int bad = 9;
                    Assert.AreNotEqual(EloBurst.Ok, EloBurst.RatePlacements(rules.BurstHandle, p, 1, &bad));
                }
            }
        }

        [Test]
        public void RatePlayersAndExpectedScoreMatchTheManagedRules()
        {
            using (var rules = new EloRules(new EloSettings { KPolicy = KPolicy.Fide() }))
            {
                PlayerState a = rules.NewPlayer(), b = rules.NewPlayer();
                PlayerState c = a, d = b;
                rules.RatePlayers(ref a, ref b, MatchResult.Win);
                float expected;
                Assert.AreEqual(EloBurst.Ok, EloBurst.RatePlayers(rules.BurstHandle, &c, &d, 1f));
                Assert.AreEqual(EloBurst.Ok, EloBurst.ExpectedScore(rules.BurstHandle, 1700f, 1300f, &expected));
                Assert.AreEqual(RankingELOTests.Bits(a.Rating), RankingELOTests.Bits(c.Rating));
                Assert.AreEqual(RankingELOTests.Bits(b.Rating), RankingELOTests.Bits(d.Rating));
                Assert.AreEqual(a.GamesPlayed, c.GamesPlayed);
                Assert.AreEqual(RankingELOTests.Bits((float)rules.ExpectedScore(1700f, 1300f)), RankingELOTests.Bits(expected));
                Assert.AreNotEqual(EloBurst.Ok, EloBurst.RatePlayers(rules.BurstHandle, &c, &c, 1f), "the same state twice is refused");
            }
        }
    }
}
