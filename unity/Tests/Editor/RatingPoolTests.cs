using System;
using System.IO;
using NUnit.Framework;

namespace RankingElo.Tests
{
    /// <summary>Pools, leaderboards, saves and the matchmaker through the C# API.</summary>
    [TestFixture]
    public class RatingPoolTests
    {
        private static RatingPool NewPool(EloSettings settings, int players)
        {
            using (var rules = new EloRules(settings))
            {
                var pool = new RatingPool(rules);
                Assert.AreEqual(0, pool.AddPlayers(players));
                return pool;
            }
        }

        [Test]
        public void MatchesApplyInOrderAndLeaderboardsFollow()
        {
            using (RatingPool pool = NewPool(new EloSettings(), 5))
            {
                float[] deltaA = new float[2], expectedA = new float[2];
                pool.Apply(new[] { 3, 3 }, new[] { 1, 4 }, new[] { 1f, 1f }, deltaA, null, expectedA);
                Assert.AreEqual(16f, deltaA[0]);
                Assert.AreEqual(0.5f, expectedA[0]);
                CollectionAssert.AreEqual(new[] { 3, 0, 2 }, pool.Top(3));
                Assert.AreEqual(1, pool.Bottom(1)[0]);
                Assert.AreEqual(5, pool.Top(50).Length);
                Assert.AreEqual(1, pool.RankOf(3));
                PlayerState best = pool[3];
                Assert.AreEqual(2u, best.GamesPlayed);
                Assert.AreEqual(2u, best.WinStreak);
                pool.Apply(0, 3, MatchResult.Win);
                Assert.AreEqual(0u, pool[3].WinStreak);
                CollectionAssert.AreEqual(new[] { 5 }, pool.LeagueCounts());
            }
        }

        /// <summary>The indexer reports an index outside the pool as .NET collections do.</summary>
        [Test]
        public void IndexerThrowsArgumentOutOfRange()
        {
            using (RatingPool pool = NewPool(new EloSettings(), 3))
            {
                Assert.Throws<ArgumentOutOfRangeException>(() => { PlayerState unused = pool[3]; });
                Assert.Throws<ArgumentOutOfRangeException>(() => { PlayerState unused = pool[-1]; });
                Assert.Throws<ArgumentOutOfRangeException>(() => pool[5] = new PlayerState());
                Assert.AreEqual(1500f, pool[2].Rating);
            }
        }

        /// <summary>TryLoad loads a valid save and reports an unusable one without throwing.</summary>
        [Test]
        public void TryLoadLoadsValidSaves()
        {
            string path = Path.Combine(Path.GetTempPath(), "ranking-elo-try-" + Guid.NewGuid().ToString("N") + ".json");
            try
            {
                using (RatingPool pool = NewPool(new EloSettings(), 5))
                using (RatingPool other = NewPool(new EloSettings(), 0))
                {
                    pool.Apply(0, 1, MatchResult.Win);
                    pool.Save(path);
                    string why;
                    Assert.IsTrue(other.TryLoad(path, out why));
                    Assert.IsNull(why);
                    Assert.AreEqual(pool.ToJson(), other.ToJson());
                }
            }
            finally
            {
                File.Delete(path);
            }
        }

        [Test]
        public void BadMatchesChangeNothingAndReportTheirPosition()
        {
            using (RatingPool pool = NewPool(new EloSettings(), 4))
            {
                float[] before = new float[4], after = new float[4];
                pool.GetRatings(before);
                var outOfRange = Assert.Throws<EloIndexOutOfRangeException>(() => pool.Apply(new[] { 0, 1 }, new[] { 1, 9 }, new[] { 1f, 1f }));
                Assert.AreEqual(EloError.IndexOutOfRange, outOfRange.Error);
                StringAssert.StartsWith("matches[1]", outOfRange.Message);
                var same = Assert.Throws<EloArgumentException>(() => pool.Apply(new[] { 2 }, new[] { 2 }, new[] { 1f }));
                Assert.AreEqual(EloError.SamePlayer, same.Error);
                var nan = Assert.Throws<EloArgumentException>(() => pool.Apply(new[] { 0, 1 }, new[] { 1, 2 }, new[] { 0f, float.NaN }));
                Assert.AreEqual(EloError.NotFinite, nan.Error);
                var negative = Assert.Throws<EloArgumentException>(() => pool.ApplyPoints(new[] { 0 }, new[] { 1 }, new[] { -1f }, new[] { 2f }));
                Assert.AreEqual(EloError.NegativePoints, negative.Error);
                pool.GetRatings(after);
                CollectionAssert.AreEqual(before, after);
                Assert.Throws<EloArgumentException>(() => pool.Apply(new[] { 0 }, new[] { 1, 2 }, new[] { 1f }));
            }
        }

        [Test]
        public void SettingAPlayerKeepsTheZeroSumTotal()
        {
            using (RatingPool pool = NewPool(new EloSettings { ZeroSumTotal = 3000 }, 2))
            {
                pool[0] = new PlayerState(1600f);
                Assert.AreEqual(3000.0, pool.Total);
                Assert.AreEqual(1550f, pool[0].Rating);
                Assert.AreEqual(1450f, pool[1].Rating);
                using (RatingPool copy = RatingPool.FromJson(pool.ToJson()))
                {
                    Assert.AreEqual(3000.0, copy.Total);
                    Assert.AreEqual(1550f, copy[0].Rating);
                }
            }
        }

        [Test]
        public void NonFinitePeakRatingsAreRefused()
        {
            using (var rules = new EloRules())
            using (RatingPool pool = NewPool(new EloSettings(), 2))
            {
                foreach (float peak in new[] { float.NaN, float.NegativeInfinity })
                {
                    var bad = new PlayerState(1500f) { PeakRating = peak };
                    var error = Assert.Throws<EloArgumentException>(() => pool[0] = bad);
                    Assert.AreEqual(EloError.NotFinite, error.Error);
                    StringAssert.Contains("peak_rating", error.Message);
                    PlayerState[] a = { bad, rules.NewPlayer() }, b = { rules.NewPlayer(), rules.NewPlayer() };
                    Assert.Throws<EloArgumentException>(() => rules.RateTeams(a, b, MatchResult.Win));
                    Assert.AreEqual(peak, a[0].PeakRating, "nothing written");
                    Assert.Throws<EloArgumentException>(() => rules.RatePlacements(new[] { bad, rules.NewPlayer() }, new[] { 1, 2 }));
                }
                Assert.AreEqual(1500f, pool[0].PeakRating);
            }
        }

        [Test]
        public void ZeroSumPoolKeepsItsTotal()
        {
            var settings = new EloSettings { ZeroSumTotal = 1000, ExpectedScore = ExpectedScoreModel.Linear(0.002), KPolicy = KPolicy.League(), KCombine = KCombine.Average, StreakAlpha = 0.1 };
            settings.Leagues.Add(new League("Bronze", 0f, 200));
            settings.Leagues.Add(new League("Silver", 100f, 150));
            using (RatingPool pool = NewPool(settings, 200))
            {
                var random = new System.Random(1);
                int[] a = new int[1000], b = new int[1000];
                float[] s = new float[1000];
                for (int i = 0; i < a.Length; i++)
                {
                    a[i] = random.Next(200);
                    b[i] = (a[i] + 1 + random.Next(199)) % 200;
                    s[i] = random.Next(2);
                }
                pool.Apply(a, b, s);
                Assert.AreEqual(1000.0, pool.Total, 1e-6);
                int[] counts = pool.LeagueCounts();
                Assert.AreEqual(2, counts.Length);
                Assert.AreEqual(200, counts[0] + counts[1]);
                int[] leagues = new int[200];
                pool.GetLeagues(leagues);
                int silver = 0;
                for (int i = 0; i < leagues.Length; i++)
                {
                    Assert.AreEqual(pool.LeagueOf(i), leagues[i]);
                    Assert.AreEqual(pool[i].Rating >= 100f ? 1 : 0, leagues[i]);
                    silver += leagues[i];
                }
                Assert.AreEqual(counts[1], silver);
                Assert.Throws<EloIndexOutOfRangeException>(() => pool.GetLeagues(new int[5], 198));
            }
        }

        [Test]
        public void SavesRoundTripExactlyAndBadSavesAreRefused()
        {
            using (RatingPool pool = NewPool(new EloSettings { Rounding = Rounding.HalfAwayFromZero }, 10))
            {
                pool.ApplyPoints(new[] { 0, 1, 2 }, new[] { 1, 2, 3 }, new[] { 3f, 0f, 1f }, new[] { 2f, 0f, 4f });
                string save = pool.ToJson();
                using (RatingPool copy = RatingPool.FromJson(save))
                {
                    float[] original = new float[10], restored = new float[10];
                    pool.GetRatings(original);
                    copy.GetRatings(restored);
                    for (int i = 0; i < 10; i++) Assert.AreEqual(RankingELOTests.Bits(original[i]), RankingELOTests.Bits(restored[i]));
                    var truncated = Assert.Throws<EloSaveException>(() => copy.LoadJson(save.Substring(0, save.Length / 2)));
                    Assert.AreEqual(EloError.InvalidSave, truncated.Error);
                    Assert.AreEqual(10, copy.Count);
                }

                string path = Path.Combine(Path.GetTempPath(), "ranking-elo-" + Guid.NewGuid().ToString("N") + ".json");
                try
                {
                    pool.Save(path);
                    using (RatingPool loaded = NewPool(new EloSettings(), 0))
                    {
                        loaded.Load(path);
                        Assert.AreEqual(pool.ToJson(), loaded.ToJson());
                        File.WriteAllText(path, "{\"format\":\"ranking-elo-pool\"");
                        Assert.AreEqual(EloError.InvalidSave, Assert.Throws<EloSaveException>(() => loaded.Load(path)).Error);
                        Assert.AreEqual(EloError.Io, Assert.Throws<EloIOException>(() => loaded.Load(path + ".missing")).Error);
                        string why;
                        Assert.IsFalse(loaded.TryLoad(path, out why));
                        StringAssert.Contains("invalid pool save", why);
                        Assert.IsFalse(loaded.TryLoad(path + ".missing"));
                        Assert.AreEqual(EloError.InvalidArgument, Assert.Throws<EloArgumentException>(() => loaded.Load("")).Error);
                        Assert.AreEqual(10, loaded.Count);
                    }
                }
                finally
                {
                    File.Delete(path);
                }
            }
        }

        [Test]
        public void PoolHandleDisposal()
        {
            RatingPool pool = NewPool(new EloSettings(), 2);
            pool.Dispose();
            pool.Dispose();
            Assert.IsTrue(pool.IsDisposed);
            Assert.Throws<ObjectDisposedException>(() => pool.Apply(0, 1, MatchResult.Win));
            Assert.Throws<ObjectDisposedException>(() => { var unused = pool.Count; });
        }

        [Test]
        public void MatchmakerPairsCloseRatingsDeterministically()
        {
            var settings = MatchmakerSettings.Default;
            settings.Seed = 9;
            ulong[] a = new ulong[100], b = new ulong[100];
            int first;
            ulong[] firstA;
            using (var queue = new Matchmaker(settings))
            {
                for (ulong id = 0; id < 100; id++) queue.Join(id, 1000f + 10f * id, 0.0);
                Assert.AreEqual(100, queue.Count);
                Assert.AreEqual(EloError.DuplicateId, Assert.Throws<EloArgumentException>(() => queue.Join(5, 1000f, 0.0)).Error);
                first = queue.Tick(0.0, a, b);
                firstA = (ulong[])a.Clone();
                for (int i = 0; i < first; i++)
                {
                    Assert.LessOrEqual(Math.Abs((double)a[i] - b[i]) * 10.0, 100.0);
                }
                Assert.AreEqual(100 - 2 * first, queue.Count);
                Assert.IsFalse(queue.Leave(a[0]));
            }
            using (var again = new Matchmaker(settings))
            {
                for (ulong id = 0; id < 100; id++) again.Join(id, 1000f + 10f * id, 0.0);
                Assert.AreEqual(first, again.Tick(0.0, a, b));
                CollectionAssert.AreEqual(firstA, a);
            }
            var bad = MatchmakerSettings.Default;
            bad.MaxDistance = 1;
            StringAssert.Contains("max_distance", Assert.Throws<EloArgumentException>(() => new Matchmaker(bad)).Message);
        }

        /// <summary>
        /// FIDE's rules from code equal the configuration reference's JSON, and a rating period
        /// reproduces FIDE's published calculation (id 2016192, period 2025-12-01: 2813 with K 10,
        /// 0 + 0 + 0.04 + 0.07 - 0.36 = -0.25, times 10 is -2.5, rounded once to -3).
        /// </summary>
        [Test]
        public void FidesRulesRateAPeriodAsFidePublishedIt()
        {
            var settings = new EloSettings
            {
                ExpectedScore = ExpectedScoreModel.FideTable(),
                MaxRatingDifference = 400,
                MaxRatingDifferenceExemptFrom = 2650,
                KPolicy = KPolicy.Fide(true),
                Rounding = Rounding.HalfAwayFromZero,
            };
            const string json = @"{""expected_score"": {""model"": ""fide_table""}, ""max_rating_difference"": 400, ""max_rating_difference_exempt_from"": 2650,
                ""k_policy"": {""policy"": ""fide"", ""period_rule"": true}, ""rounding"": ""half_away_from_zero""}";
            using (var fromCode = new EloRules(settings))
            using (var rules = EloRules.FromJson(json))
            using (var pool = new RatingPool(rules))
            {
                Assert.AreEqual(rules.ToJson(), fromCode.ToJson());
                var players = new PlayerState[6];
                float[] ratings = { 2813, 1787, 2025, 2310, 2400, 2505 };
                for (int i = 0; i < players.Length; i++)
                {
                    players[i] = rules.NewPlayer();
                    players[i].Rating = ratings[i];
                    players[i].GamesPlayed = 100;
                    players[i].HasReached2400 = ratings[i] >= 2400;
                }
                pool.AddPlayers(players);
                float[] deltaA = new float[5], expectedA = new float[5];
                pool.RatePeriod(new[] { 0, 0, 0, 0, 0 }, new[] { 1, 2, 3, 4, 5 }, new[] { 1f, 1f, 1f, 1f, 0.5f }, deltaA, null, expectedA);
                Assert.AreEqual(2810f, pool[0].Rating);
                CollectionAssert.AreEqual(new[] { 0f, 0f, 0.4f, 0.7f, -3.6f }, deltaA);
                // The two opponents more than 400 points away: 1.00 and .96 for the 2813 player (exempt).
                Assert.AreEqual(1f, expectedA[0]);
                Assert.AreEqual(0.96f, expectedA[2]);
                var bad = Assert.Throws<EloIndexOutOfRangeException>(() => pool.RatePeriod(new[] { 0, 1 }, new[] { 1, 9 }, new[] { 1f, 1f }));
                StringAssert.StartsWith("matches[1]", bad.Message);
                Assert.AreEqual(2810f, pool[0].Rating, "a bad period changes nothing");
            }
            // The rounding target: from 1656.5 a change of -10.02 gives 1646.5 (the change
            // rounded) or 1646 (the rating rounded).
            var target = new EloSettings { ExpectedScore = ExpectedScoreModel.FideTable(), KPolicy = KPolicy.Constant(20.04), Rounding = Rounding.HalfAwayFromZero };
            using (var change = new EloRules(target))
            {
                Assert.AreEqual(1646.5f, change.Rate(1656.5f, 1656.5f, 0f).A);
            }
            target.RoundingTarget = RoundingTarget.Rating;
            using (var rating = new EloRules(target))
            {
                Assert.AreEqual(1646f, rating.Rate(1656.5f, 1656.5f, 0f).A);
                StringAssert.Contains(@"""rounding_target"": ""rating""", rating.ToJson());
            }
        }

        [Test]
        public void PublicErrorCodesMirrorTheNativeOnes()
        {
            foreach (Native.EloResult code in Enum.GetValues(typeof(Native.EloResult)))
            {
                string expected = code == Native.EloResult.Ok ? "None" : code.ToString();
                Assert.AreEqual(expected, ((EloError)(uint)code).ToString(), "EloError for native " + code);
            }
            Assert.AreEqual(Enum.GetValues(typeof(Native.EloResult)).Length, Enum.GetValues(typeof(EloError)).Length);
        }
    }
}
