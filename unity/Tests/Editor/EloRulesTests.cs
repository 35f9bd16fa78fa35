using System;
using System.Runtime.InteropServices;
using NUnit.Framework;

namespace RankingElo.Tests
{
    /// <summary>The configured engine: settings, JSON, K policies, leagues, errors and disposal.</summary>
    [TestFixture]
    public class EloRulesTests
    {
        [Test]
        public void DefaultRulesFollowTheSpec()
        {
            using (var rules = new EloRules())
            {
                RatingPair loss = rules.Rate(1700f, 1300f, MatchResult.Loss);
                Assert.AreEqual(1670.9091, loss.A, 1e-3);
                Assert.AreEqual(1329.0909, loss.B, 1e-3);
                Assert.AreEqual(1.0 / 1.1, rules.ExpectedScore(1700f, 1300f), 1e-7);
                Assert.AreEqual(1500f, rules.NewPlayer().Rating);
            }
        }

        [Test]
        public void TruncateRoundingGivesIntegerElo()
        {
            using (var rules = new EloRules(new EloSettings { Rounding = Rounding.Truncate }))
            {
                RatingPair win = rules.Rate(1700f, 1300f, MatchResult.Win);
                RatingPair loss = rules.Rate(1700f, 1300f, MatchResult.Loss);
                Assert.AreEqual(1702f, win.A);
                Assert.AreEqual(1298f, win.B);
                Assert.AreEqual(1671f, loss.A);
                Assert.AreEqual(1329f, loss.B);
            }
        }

        /// <summary>004's 3:1 win with K 32, L 4, V 2 from 1000/1000: the share is the K term's
        /// score by default, the result with <see cref="PointsKTerm.Result"/>; the loser earns no
        /// victory bonus.</summary>
        [Test]
        public void PointsFollowSeed004()
        {
            var share = new EloSettings { ScoreShareBonus = 4, VictoryBonus = 2 };
            var result = new EloSettings { ScoreShareBonus = 4, VictoryBonus = 2, PointsKTerm = PointsKTerm.Result };
            using (var rules = new EloRules(share))
            {
                RatingPair pair = rules.RatePoints(1000f, 1000f, 3f, 1f);
                Assert.AreEqual(1013f, pair.A);
                Assert.AreEqual(993f, pair.B);
            }
            using (var rules = new EloRules(result))
            {
                RatingPair pair = rules.RatePoints(1000f, 1000f, 3f, 1f);
                Assert.AreEqual(1021f, pair.A);
                Assert.AreEqual(985f, pair.B);
            }
        }

        /// <summary>Ratings beyond ±1e15 and settings that could overflow are refused with their own code.</summary>
        [Test]
        public void OutOfRangeValuesAreRefused()
        {
            using (var rules = new EloRules())
            {
                var error = Assert.Throws<EloArgumentException>(() => rules.Rate(1e30f, 1500f, MatchResult.Win));
                Assert.AreEqual(EloError.OutOfRange, error.Error);
            }
            var huge = Assert.Throws<EloArgumentException>(() => new EloRules(new EloSettings { VictoryBonus = 1e78 }));
            Assert.AreEqual(EloError.InvalidConfig, huge.Error);
            StringAssert.Contains("victory_bonus", huge.Message);
        }

        [Test]
        public void SettingsRoundTripThroughNativeJson()
        {
            var settings = new EloSettings
            {
                ExpectedScore = ExpectedScoreModel.Normal(250),
                KPolicy = KPolicy.RatingBands(new KTier(2100, 32), new KTier(2400, 24), KTier.Otherwise(16)),
                MinRating = 100f,
                VictoryBonus = 0.5,
                KCombine = KCombine.Average,
            };
            settings.Leagues.Add(new League("Bronze \"B\"", 0f, 200) { VictoryBonus = 3 });
            settings.Leagues.Add(new League("Silver", 1000f, 150));
            using (var rules = new EloRules(settings))
            using (var copy = EloRules.FromJson(rules.ToJson()))
            {
                string json = copy.ToJson();
                StringAssert.Contains("\"rating_bands\"", json);
                StringAssert.Contains("Bronze \\\"B\\\"", json);
                Assert.AreEqual(json, rules.ToJson());
                Assert.AreEqual(2, copy.LeagueCount);
                Assert.AreEqual(0, copy.LeagueOf(-50f));
                Assert.AreEqual(1, copy.LeagueOf(1500f));
            }
        }

        [Test]
        public void FidePolicyNeedsPlayerState()
        {
            using (var rules = new EloRules(new EloSettings { KPolicy = KPolicy.Fide() }))
            {
                var error = Assert.Throws<EloInvalidOperationException>(() => rules.Rate(1500f, 1500f, 1f));
                Assert.AreEqual(EloError.KPolicyNeedsPlayerState, error.Error);

                PlayerState newcomer = rules.NewPlayer();
                var veteran = new PlayerState(1500f) { GamesPlayed = 100 };
                rules.RatePlayers(ref newcomer, ref veteran, MatchResult.Win);
                Assert.AreEqual(1520f, newcomer.Rating); // K 40, E 0.5
                Assert.AreEqual(1490f, veteran.Rating);  // K 20
                Assert.AreEqual(1u, newcomer.GamesPlayed);
                Assert.AreEqual(1u, newcomer.WinStreak);
                Assert.AreEqual(0u, veteran.WinStreak);

                var sameError = Assert.Throws<EloArgumentException>(() => rules.RatePlayers(ref newcomer, ref newcomer, 1f));
                Assert.AreEqual(EloError.SamePlayer, sameError.Error);

                var master = new PlayerState(2395f) { GamesPlayed = 50 };
                var rival = new PlayerState(2395f) { GamesPlayed = 50 };
                rules.RatePlayersPoints(ref master, ref rival, 3f, 0f);
                Assert.IsTrue(master.HasReached2400);
            }
        }

        [Test]
        public void ConfigurationErrorsNameTheField()
        {
            var unknown = Assert.Throws<EloArgumentException>(() => EloRules.FromJson("{\"k_factor\": 32}"));
            Assert.AreEqual(EloError.UnknownJsonField, unknown.Error);
            StringAssert.Contains("k_factor", unknown.Message);
            var range = Assert.Throws<EloArgumentException>(() => new EloRules(new EloSettings { KPolicy = KPolicy.Constant(-4) }));
            Assert.AreEqual(EloError.InvalidConfig, range.Error);
            StringAssert.Contains("k_policy.k", range.Message);
            var malformed = Assert.Throws<EloArgumentException>(() => EloRules.FromJson("{"));
            Assert.AreEqual(EloError.InvalidJson, malformed.Error);
            var unordered = new EloSettings();
            unordered.Leagues.Add(new League("High", 500f, 10));
            unordered.Leagues.Add(new League("Low", 100f, 10));
            var leagues = Assert.Throws<EloArgumentException>(() => new EloRules(unordered));
            StringAssert.Contains("leagues[1].min_rating", leagues.Message);
        }

        [Test]
        public void SingleCallErrorsAreArgumentExceptions()
        {
            using (var rules = new EloRules())
            {
                Assert.AreEqual(EloError.NotFinite, Assert.Throws<EloArgumentException>(() => rules.Rate(float.NaN, 1f, 1f)).Error);
                Assert.AreEqual(EloError.ScoreOutOfRange, Assert.Throws<EloArgumentException>(() => rules.Rate(1f, 1f, -0.5f)).Error);
                Assert.AreEqual(EloError.NegativePoints, Assert.Throws<EloArgumentException>(() => rules.RatePoints(1f, 1f, -1f, 0f)).Error);
                Assert.AreEqual(EloError.NegativeK, Assert.Throws<EloArgumentException>(() => rules.RateWithK(1f, 1f, 1f, -1f, 1f)).Error);
                RatingPair margin = rules.RatePoints(1000f, 1000f, 3f, 2f);
                Assert.AreEqual(1003.2, margin.A, 1e-4);
            }
        }

        [Test]
        public void BatchMatchesSingleCallsBitForBitAndFailsAtomically()
        {
            using (var rules = new EloRules(new EloSettings { Rounding = Rounding.HalfAwayFromZero }))
            {
                var random = new System.Random(3);
                const int n = 500;
                float[] a = new float[n], b = new float[n], s = new float[n], k = new float[n];
                for (int i = 0; i < n; i++)
                {
                    a[i] = (float)(1000 + random.NextDouble() * 1500);
                    b[i] = (float)(1000 + random.NextDouble() * 1500);
                    s[i] = (float)random.NextDouble();
                    k[i] = (float)(random.NextDouble() * 40);
                }
                float[] outA = new float[n], outB = new float[n];
                rules.RateBatch(a, b, s, k, outA, outB);
                float[] inA = (float[])a.Clone(), inB = (float[])b.Clone();
                rules.RateBatch(inA, inB, s);
                for (int i = 0; i < n; i++)
                {
                    RatingPair withK = rules.RateWithK(a[i], b[i], s[i], k[i], k[i]);
                    RatingPair policy = rules.Rate(a[i], b[i], s[i]);
                    Assert.AreEqual(RankingELOTests.Bits(withK.A), RankingELOTests.Bits(outA[i]));
                    Assert.AreEqual(RankingELOTests.Bits(withK.B), RankingELOTests.Bits(outB[i]));
                    Assert.AreEqual(RankingELOTests.Bits(policy.A), RankingELOTests.Bits(inA[i]));
                    Assert.AreEqual(RankingELOTests.Bits(policy.B), RankingELOTests.Bits(inB[i]));
                }
                float[] before = (float[])inA.Clone();
                s[n - 1] = float.NaN;
                var error = Assert.Throws<EloArgumentException>(() => rules.RateBatch(inA, inB, s));
                StringAssert.Contains("score_a[" + (n - 1) + "]", error.Message);
                CollectionAssert.AreEqual(before, inA);
            }
        }

        [Test]
        public void DisposeIsIdempotentAndUseAfterDisposeThrows()
        {
            var rules = new EloRules();
            Assert.IsFalse(rules.IsDisposed);
            rules.Dispose();
            rules.Dispose();
            Assert.IsTrue(rules.IsDisposed);
            Assert.Throws<ObjectDisposedException>(() => rules.Rate(1f, 1f, 1f));
            Assert.Throws<ObjectDisposedException>(() => rules.ToJson());
        }

        [Test]
        public void PlayerStateHasTheNativeLayout()
        {
            // EloPlayerState: ten 4-byte fields, the double at 40, the two flag bytes at 48, padded to 56.
            Assert.AreEqual(56, Marshal.SizeOf(typeof(PlayerState)));
            Assert.AreEqual(16, (int)Marshal.OffsetOf(typeof(PlayerState), "League"));
            Assert.AreEqual(36, (int)Marshal.OffsetOf(typeof(PlayerState), "PeakLeague"));
            Assert.AreEqual(40, (int)Marshal.OffsetOf(typeof(PlayerState), "LastPlayed"));
            Assert.AreEqual(48, (int)Marshal.OffsetOf(typeof(PlayerState), "isJunior"));
            Assert.AreEqual(49, (int)Marshal.OffsetOf(typeof(PlayerState), "hasReached2400"));
            Assert.AreEqual(16, Marshal.SizeOf(typeof(LeagueChange)));
            Assert.AreEqual(28, Marshal.SizeOf(typeof(SeasonRecord)));
        }
    }
}
