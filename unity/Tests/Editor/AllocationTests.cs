using System;
using NUnit.Framework;
#if UNITY_5_3_OR_NEWER
using UnityEngine.TestTools.Constraints;
#endif

namespace RankingElo.Tests
{
    /// <summary>
    /// The buffer-filling overloads a game loop calls every frame allocate no managed memory,
    /// measured around many calls after a warm-up call of each (so JIT compilation is not
    /// counted). Inside Unity the measure is Unity's own (<c>Is.Not.AllocatingGCMemory()</c>,
    /// the profiler's GC.Alloc counter): Unity's Mono uses the Boehm collector, whose
    /// <see cref="GC.GetAllocatedBytesForCurrentThread"/> always answers 0, so that counter
    /// would let every test pass. Elsewhere (Mono's SGen, .NET) the per-thread counter is used,
    /// after a probe allocation proves the runtime counts; if it does not, the tests report
    /// Inconclusive instead of passing.
    /// </summary>
    [TestFixture]
    public class AllocationTests
    {
        private const int Players = 64;
        private const int Rounds = 200;

        /// <summary>Fails when <paramref name="action"/> allocates managed memory (after one warm-up call).</summary>
        internal static void AssertAllocatesNothing(Action action, string what)
        {
            action();
#if UNITY_5_3_OR_NEWER
            Assert.That((TestDelegate)(() => { for (int i = 0; i < Rounds; i++) action(); }), UnityEngine.TestTools.Constraints.Is.Not.AllocatingGCMemory(), what);
#else
            RequireCountingRuntime();
            long before = GC.GetAllocatedBytesForCurrentThread();
            for (int i = 0; i < Rounds; i++) action();
            Assert.AreEqual(0, GC.GetAllocatedBytesForCurrentThread() - before, what + ": bytes allocated over " + Rounds + " calls");
#endif
        }

#if !UNITY_5_3_OR_NEWER
        /// <summary>Proves with one allocation that this runtime counts allocations per thread.</summary>
        private static void RequireCountingRuntime()
        {
            long before = GC.GetAllocatedBytesForCurrentThread();
            var probe = new byte[4096];
            long counted = GC.GetAllocatedBytesForCurrentThread() - before;
            GC.KeepAlive(probe);
            if (counted < probe.Length)
            {
                Assert.Inconclusive("this runtime does not count allocations per thread (GC.GetAllocatedBytesForCurrentThread reported "
                    + counted + " bytes for a 4 KiB array), so 'allocates nothing' cannot be measured here");
            }
        }
#endif

        [Test]
        public void TheMeasureCatchesAnAllocation()
        {
            var sink = new object[1];
            Assert.Throws<AssertionException>(() => AssertAllocatesNothing(() => sink[0] = new int[16], "an allocating call"));
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

                AssertAllocatesNothing(() => pool.Top(new Span<int>(top)), "Top(Span)");
                AssertAllocatesNothing(() => pool.Bottom(new Span<int>(bottom)), "Bottom(Span)");
                AssertAllocatesNothing(() => pool.LeagueCounts(new Span<int>(counts)), "LeagueCounts(Span)");
                AssertAllocatesNothing(() => pool.GetRatings(new Span<float>(ratings), 0), "GetRatings(Span)");
                AssertAllocatesNothing(() => pool.GetLeagues(new Span<int>(leagues), 0), "GetLeagues(Span)");
                AssertAllocatesNothing(() => pool.GetRatings(ratings), "GetRatings(float[])");
                AssertAllocatesNothing(() => pool.Apply(new ReadOnlySpan<int>(a), new ReadOnlySpan<int>(b), new ReadOnlySpan<float>(scores)), "Apply(Span)");
                AssertAllocatesNothing(() => pool.Apply(new ReadOnlySpan<int>(a), new ReadOnlySpan<int>(b), new ReadOnlySpan<float>(scores), new Span<float>(deltas), Span<float>.Empty, Span<float>.Empty), "Apply(Span, outputs)");
                AssertAllocatesNothing(() => pool.Apply(a, b, scores), "Apply(arrays)");
                var events = new LeagueChange[Players];
                int eventCount;
                double now = 0;
                AssertAllocatesNothing(() => pool.Apply(new ReadOnlySpan<int>(a), new ReadOnlySpan<int>(b), new ReadOnlySpan<float>(scores), new Span<LeagueChange>(events)), "Apply(Span, events)");
                AssertAllocatesNothing(() => pool.ApplyDecay(now += 86400, new Span<LeagueChange>(events), out eventCount), "ApplyDecay(Span)");
                AssertAllocatesNothing(() => pool.Clock = now, "Clock");

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
                AssertAllocatesNothing(() =>
                {
                    queue.Join(next++, 1500f, now);
                    queue.Join(next++, 1510f, now);
                    now += 1;
                    pairs += queue.Tick(now, new Span<ulong>(pairA), new Span<ulong>(pairB));
                }, "Join + Tick(Span)");
                Assert.AreEqual(Rounds + 1, pairs, "one pair per round");
            }
            AssertAllocatesNothing(() => RankingELO.UpdatePlayerRankings(1700f, 1300f, 32f, MatchResult.Draw), "UpdatePlayerRankings");
            AssertAllocatesNothing(() => RankingELO.GetProbabilityWinning(1700f, 1300f), "GetProbabilityWinning");
        }
    }
}
