using System;
using NUnit.Framework;

namespace RankingElo.Tests
{
    /// <summary>Team matches and free-for-alls from C#: rules, pools, atomicity, no garbage.</summary>
    [TestFixture]
    public class GroupMatchTests
    {
        [Test]
        public void TeamsAndPlacementsRate()
        {
            using (var rules = new EloRules())
            {
                PlayerState[] a = { rules.NewPlayer(), rules.NewPlayer() };
                PlayerState[] b = { rules.NewPlayer(), rules.NewPlayer() };
                rules.RateTeams(a, b, MatchResult.Win);
                Assert.AreEqual(1516f, a[0].Rating);
                Assert.AreEqual(1484f, b[1].Rating);
                Assert.AreEqual(1u, a[1].GamesPlayed);
                var field = new[] { rules.NewPlayer(), rules.NewPlayer(), rules.NewPlayer(), rules.NewPlayer() };
                rules.RatePlacements(field, new[] { 1, 2, 2, 4 });
                Assert.AreEqual(1516f, field[0].Rating);
                Assert.AreEqual(field[1].Rating, field[2].Rating);
                var before = (PlayerState[])field.Clone();
                var error = Assert.Throws<EloArgumentException>(() => rules.RatePlacements(field, new[] { 1, 2, 3, 9 }));
                StringAssert.Contains("places[3]", error.Message);
                CollectionAssert.AreEqual(before, field, "nothing changed");
            }
        }

        [Test]
        public void PoolsApplyTeamAndFreeForAllListsAtomically()
        {
            using (var rules = new EloRules(new EloSettings { ZeroSumTotal = 6000 }))
            using (var pool = new RatingPool(rules))
            {
                pool.AddPlayers(6);
                pool.ApplyTeams(new[] { 0, 1, 2, 3, 4, 5, 0, 1 }, new[] { 0, 2, 4, 6, 8 }, new[] { 1f, 0.5f });
                pool.ApplyPlacements(new[] { 0, 1, 2, 3, 4, 5 }, new[] { 0, 6 }, new[] { 1, 2, 3, 4, 5, 6 });
                Assert.AreEqual(6000.0, pool.Total, 1e-6);
                var ratings = new float[6];
                pool.GetRatings(ratings);
                var again = new float[6];
                var error = Assert.Throws<EloArgumentException>(() => pool.ApplyTeams(new[] { 0, 1, 2, 2 }, new[] { 0, 2, 4 }, new[] { 1f }));
                Assert.AreEqual(EloError.SamePlayer, error.Error);
                StringAssert.StartsWith("matches[0]", error.Message);
                pool.GetRatings(again);
                CollectionAssert.AreEqual(ratings, again);
            }
        }

        [Test]
        public void ZeroSumTeamMatchIsThePairRule()
        {
            // Issue 18: a 2v2 at 1500 in a zero-sum pool (T 6000) moves nobody's total.
            using (var rules = new EloRules(new EloSettings { ZeroSumTotal = 6000 }))
            using (var pool = new RatingPool(rules))
            {
                pool.AddPlayers(4);
                pool.ApplyTeams(new[] { 0, 1, 2, 3 }, new[] { 0, 2, 4 }, new[] { 1f });
                var ratings = new float[4];
                pool.GetRatings(ratings);
                CollectionAssert.AreEqual(new[] { 1516f, 1516f, 1484f, 1484f }, ratings);
                Assert.AreEqual(6000.0, pool.Total);
            }
            // A 1v1 team match is the pair match, bit for bit, in a zero-sum pool of two too.
            using (var rules = new EloRules(new EloSettings { ZeroSumTotal = 3000 }))
            using (var teams = new RatingPool(rules))
            using (var pairs = new RatingPool(rules))
            {
                teams.AddPlayers(2);
                pairs.AddPlayers(2);
                foreach (float score in new[] { 1f, 0f, 0.5f, 1f, 0.25f })
                {
                    teams.ApplyTeams(new[] { 0, 1 }, new[] { 0, 1, 2 }, new[] { score });
                    pairs.Apply(new[] { 0 }, new[] { 1 }, new[] { score });
                    for (int i = 0; i < 2; i++)
                    {
                        Assert.AreEqual(BitConverter.ToInt32(BitConverter.GetBytes(pairs[i].Rating), 0), BitConverter.ToInt32(BitConverter.GetBytes(teams[i].Rating), 0), "player " + i + " after " + score);
                    }
                }
            }
        }

        [Test]
        public void TheMatchmakerFormsBalancedTeams()
        {
            using (var queue = new Matchmaker(MatchmakerSettings.Default))
            {
                float[] ratings = { 1500f, 1520f, 1480f, 1510f, 1490f, 1530f };
                for (int i = 0; i < ratings.Length; i++) queue.Join((ulong)i, ratings[i], 0);
                var ids = new ulong[6];
                Assert.AreEqual(1, queue.TickTeams(1, 3, ids));
                float a = 0, b = 0;
                for (int i = 0; i < 3; i++) a += ratings[ids[i]];
                for (int i = 3; i < 6; i++) b += ratings[ids[i]];
                Assert.LessOrEqual(System.Math.Abs(a - b), 30f);
                Assert.AreEqual(0, queue.Count);
                Assert.Throws<ArgumentOutOfRangeException>(() => queue.TickTeams(1, 0, ids));
            }
        }

        [Test]
        public void PartiesPlayOnOneSideAndFreeForAllsFill()
        {
            using (var queue = new Matchmaker(MatchmakerSettings.Default))
            {
                queue.JoinParty(10, 1500f, 2, 0);
                queue.Join(11, 1490f, 0);
                queue.Join(12, 1510f, 0);
                Assert.Throws<EloArgumentException>(() => queue.JoinParty(13, 1500f, 65, 0));
                var tickets = new ulong[4];
                var teamA = new int[1];
                var teamB = new int[1];
                Assert.AreEqual(1, queue.TickTeamMatches(1, 2, tickets, teamA, teamB));
                Assert.AreEqual(10UL, tickets[0], "the party leads team A");
                Assert.AreEqual(1, teamA[0]);
                Assert.AreEqual(2, teamB[0]);
                for (ulong id = 20; id < 23; id++) queue.Join(id, 1500f + id, 2);
                var field = new ulong[3];
                Assert.AreEqual(1, queue.TickFreeForAll(3, 3, field));
                Assert.AreEqual(20UL, field[0]);
                Assert.AreEqual(0, queue.Count);
                Assert.Throws<ArgumentOutOfRangeException>(() => queue.TickFreeForAll(3, 1, field));
            }
        }

        [Test]
        public void GroupCallsAllocateNothing()
        {
            using (var rules = new EloRules())
            using (var pool = new RatingPool(rules))
            {
                pool.AddPlayers(10);
                var members = new[] { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 };
                var teamOffsets = new[] { 0, 5, 10 };
                var score = new[] { 1f };
                var offsets = new[] { 0, 10 };
                var places = new[] { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
                var field = new PlayerState[10];
                for (int i = 0; i < field.Length; i++) field[i] = rules.NewPlayer();
                AllocationTests.AssertAllocatesNothing(() =>
                {
                    pool.ApplyTeams(new ReadOnlySpan<int>(members), new ReadOnlySpan<int>(teamOffsets), new ReadOnlySpan<float>(score), ReadOnlySpan<float>.Empty);
                    pool.ApplyPlacements(new ReadOnlySpan<int>(members), new ReadOnlySpan<int>(offsets), new ReadOnlySpan<int>(places));
                    rules.RatePlacements(new Span<PlayerState>(field), new ReadOnlySpan<int>(places));
                    rules.RateTeams(new Span<PlayerState>(field), 5, 1f, ReadOnlySpan<float>.Empty);
                }, "team and free-for-all span overloads");
            }
        }
    }
}
