using System;
using NUnit.Framework;

namespace RankingElo.Tests
{
    /// <summary>
    /// The buffer-filling overloads a game loop calls every frame allocate no managed memory:
    /// measured with <see cref="GC.GetAllocatedBytesForCurrentThread"/> around many calls,
    /// after a warm-up call of each (so JIT compilation is not counted).
    /// </summary>
    [TestFixture]
    public class AllocationTests
    {
        private const int Players = 64;
        private const int Rounds = 200;

        private static long AllocatedBy(Action action)
        {
            action();
            long before = GC.GetAllocatedBytesForCurrentThread();
            for (int i = 0; i < Rounds; i++) action();
            return GC.GetAllocatedBytesForCurrentThread() - before;
        }

        [Test]
        public void PoolReadBacksAndApplyAllocateNothing()
        {
            var settings = new EloSettings { KPolicy = KPolicy.League() };
            settings.Leagues.Add(new League("Bronze", 0f, 40));
            settings.Leagues.Add(new League("Silver", 1500f, 20));
            using (var rules = new EloRules(settings))
            using (var pool = new RatingPool(rules))
            {
                pool.AddPlayers(Players);
                var top = new int[10];
                var bottom = new int[10];
                var counts = new int[pool.LeagueCount];
                var ratings = new float[Players];
                var leagues = new int[Players];
                var a = new int[Players / 2];
                var b = new int[Players / 2];
                var scores = new float[Players / 2];
                var deltas = new float[Players / 2];
                for (int i = 0; i < a.Length; i++)
                {
                    a[i] = 2 * i;
                    b[i] = 2 * i + 1;
                    scores[i] = i % 3 == 0 ? 0.5f : 1f;
                }

                Assert.AreEqual(0, AllocatedBy(() => pool.Top(new Span<int>(top))), "Top(Span)");
                Assert.AreEqual(0, AllocatedBy(() => pool.Bottom(new Span<int>(bottom))), "Bottom(Span)");
                Assert.AreEqual(0, AllocatedBy(() => pool.LeagueCounts(new Span<int>(counts))), "LeagueCounts(Span)");
                Assert.AreEqual(0, AllocatedBy(() => pool.GetRatings(new Span<float>(ratings), 0)), "GetRatings(Span)");
                Assert.AreEqual(0, AllocatedBy(() => pool.GetLeagues(new Span<int>(leagues), 0)), "GetLeagues(Span)");
                Assert.AreEqual(0, AllocatedBy(() => pool.GetRatings(ratings)), "GetRatings(float[])");
                Assert.AreEqual(0, AllocatedBy(() => pool.Apply(new ReadOnlySpan<int>(a), new ReadOnlySpan<int>(b), new ReadOnlySpan<float>(scores))), "Apply(Span)");
                Assert.AreEqual(0, AllocatedBy(() => pool.Apply(new ReadOnlySpan<int>(a), new ReadOnlySpan<int>(b), new ReadOnlySpan<float>(scores), new Span<float>(deltas), Span<float>.Empty, Span<float>.Empty)), "Apply(Span, outputs)");
                Assert.AreEqual(0, AllocatedBy(() => pool.Apply(a, b, scores)), "Apply(arrays)");
                var events = new LeagueChange[Players];
                int eventCount;
                double now = 0;
                Assert.AreEqual(0, AllocatedBy(() => pool.Apply(new ReadOnlySpan<int>(a), new ReadOnlySpan<int>(b), new ReadOnlySpan<float>(scores), new Span<LeagueChange>(events))), "Apply(Span, events)");
                Assert.AreEqual(0, AllocatedBy(() => pool.ApplyDecay(now += 86400, new Span<LeagueChange>(events), out eventCount)), "ApplyDecay(Span)");
                Assert.AreEqual(0, AllocatedBy(() => pool.Clock = now), "Clock");

                // The spans give what the allocating overloads give.
                pool.Top(new Span<int>(top));
                pool.LeagueCounts(new Span<int>(counts));
                CollectionAssert.AreEqual(pool.Top(10), top);
                CollectionAssert.AreEqual(pool.LeagueCounts(), counts);
                Assert.AreEqual(Players, counts[0] + counts[1]);
            }
        }

        [Test]
        public void MatchmakerTickAndSingleUpdatesAllocateNothing()
        {
            using (var queue = new Matchmaker(MatchmakerSettings.Default))
            {
                var pairA = new ulong[32];
                var pairB = new ulong[32];
                double now = 0;
                ulong next = 0;
                int pairs = 0;
                long allocated = AllocatedBy(() =>
                {
                    queue.Join(next++, 1500f, now);
                    queue.Join(next++, 1510f, now);
                    now += 1;
                    pairs += queue.Tick(now, new Span<ulong>(pairA), new Span<ulong>(pairB));
                });
                Assert.AreEqual(0, allocated, "Join + Tick(Span)");
                Assert.AreEqual(Rounds + 1, pairs, "one pair per round");
            }
            Assert.AreEqual(0, AllocatedBy(() => RankingELO.UpdatePlayerRankings(1700f, 1300f, 32f, MatchResult.Draw)), "UpdatePlayerRankings");
            Assert.AreEqual(0, AllocatedBy(() => RankingELO.GetProbabilityWinning(1700f, 1300f)), "GetProbabilityWinning");
        }
    }
}
