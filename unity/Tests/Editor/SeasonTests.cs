using System;
using System.IO;
using NUnit.Framework;

namespace RankingElo.Tests
{
    /// <summary>Seasons through the C# API: hysteresis, events, decay, the season's end, settings and saves.</summary>
    [TestFixture]
    public class SeasonTests
    {
        private const double Day = 86400.0;

        /// <summary>Silver from 1450, Gold from 1550 (keeps less at a reset), a 30-point margin, 2 protected games.</summary>
        private static EloSettings Ladder()
        {
            var settings = new EloSettings { DemotionMargin = 30, ProtectedGames = 2 };
            settings.Leagues.Add(new League("Bronze", 0f, 32));
            settings.Leagues.Add(new League("Silver", 1450f, 32));
            settings.Leagues.Add(new League("Gold", 1550f, 32) { SeasonKeep = 0.25 });
            settings.SeasonReset.Keep = 0.5;
            settings.Decay.GraceDays = 7;
            settings.Decay.PointsPerDay = 5;
            settings.Decay.MinLeague = 1;
            return settings;
        }

        private static RatingPool NewPool(EloSettings settings, params PlayerState[] players)
        {
            using (var rules = new EloRules(settings))
            {
                var pool = new RatingPool(rules);
                pool.AddPlayers(players);
                return pool;
            }
        }

        [Test]
        public void PromotionsAreReportedAndDemotionWaits()
        {
            using (RatingPool pool = NewPool(Ladder(), new PlayerState(1540f), new PlayerState(1700f)))
            {
                Assert.AreEqual(1, pool.LeagueOf(0));
                pool.Clock = 1000;
                var events = new LeagueChange[4];
                int happened = pool.Apply(new[] { 0 }, new[] { 1 }, new[] { 1f }, events);
                Assert.AreEqual(1, happened);
                Assert.AreEqual(0, events[0].Player);
                Assert.IsTrue(events[0].IsPromotion);
                Assert.AreEqual(2, events[0].ToLeague);
                PlayerState promoted = pool[0];
                Assert.AreEqual(2u, promoted.ProtectedGames);
                Assert.AreEqual(1000.0, promoted.LastPlayed);
                Assert.AreEqual(1u, promoted.SeasonWins);
                // Two protected losses, then the third demotes once past the margin.
                LeagueChange[] first = pool.ApplyWithEvents(new[] { 1, 1 }, new[] { 0, 0 }, new[] { 1f, 1f });
                Assert.AreEqual(0, first.Length);
                Assert.AreEqual(2, pool.LeagueOf(0));
                pool[0] = WithRating(pool[0], 1525f);
                LeagueChange[] fall = pool.ApplyWithEvents(new[] { 1 }, new[] { 0 }, new[] { 1f });
                Assert.AreEqual(1, fall.Length);
                Assert.IsFalse(fall[0].IsPromotion);
                Assert.AreEqual(1, fall[0].ToLeague);
                Assert.AreEqual(2, pool[0].PeakLeague);
            }
        }

        private static PlayerState WithRating(PlayerState state, float rating)
        {
            state.Rating = rating;
            return state;
        }

        [Test]
        public void DecayAndSeasonEndMatchTheFormulas()
        {
            using (RatingPool pool = NewPool(Ladder(), new PlayerState(1600f), new PlayerState(1520f), new PlayerState(1400f)))
            {
                LeagueChange[] events;
                // 10 days: 3 past the grace period, 15 points for Silver and Gold.
                Assert.AreEqual(2, pool.ApplyDecay(10 * Day, out events));
                Assert.AreEqual(1585f, pool[0].Rating);
                Assert.AreEqual(1505f, pool[1].Rating);
                Assert.AreEqual(1400f, pool[2].Rating);
                Assert.AreEqual(0, events.Length);
                Assert.Throws<EloArgumentException>(() => pool.ApplyDecay(9 * Day));
                Assert.Throws<EloArgumentException>(() => pool.Clock = double.NaN);

                string path = Path.Combine(Path.GetTempPath(), "ranking-elo-season-" + Guid.NewGuid().ToString("N") + ".json");
                SeasonRecord[] records = pool.EndSeason(path);
                Assert.AreEqual(3, records.Length);
                Assert.AreEqual(1585f, records[0].Rating);
                Assert.AreEqual(2, records[0].League);
                StringAssert.Contains("ranking-elo-season", File.ReadAllText(path));
                File.Delete(path);
                // Gold keeps 0.25 of its distance to 1500, the others 0.5.
                Assert.AreEqual(1500f + 85f * 0.25f, pool[0].Rating);
                Assert.AreEqual(1502.5f, pool[1].Rating);
                Assert.AreEqual(1450f, pool[2].Rating);
                Assert.AreEqual(0u, pool[0].SeasonGames);
                Assert.AreEqual(pool[0].Rating, pool[0].PeakRating);
                Assert.Throws<EloIOException>(() => pool.EndSeason(Path.Combine(Path.GetTempPath(), "missing-" + Guid.NewGuid().ToString("N"), "s.json")));
            }
        }

        /// <summary>The worked life cycle's configuration (docs/seasons.md).</summary>
        private static EloSettings LifeCycle()
        {
            var settings = new EloSettings { KPolicy = KPolicy.League(), DemotionMargin = 30, ProtectedGames = 3 };
            settings.Leagues.Add(new League("Bronze", 0f, 40));
            settings.Leagues.Add(new League("Silver", 1450f, 32));
            settings.Leagues.Add(new League("Gold", 1550f, 24) { SeasonKeep = 0.25 });
            settings.Leagues.Add(new League("Platinum", 1650f, 16));
            settings.SeasonReset.Keep = 0.5;
            settings.Decay.GraceDays = 7;
            settings.Decay.PointsPerDay = 4;
            settings.Decay.MinLeague = 2;
            return settings;
        }

        [Test]
        public void DecayStopsAtMinLeaguesBoundDailyOrOnce()
        {
            // docs/seasons.md, step 4: Gold at 1600, Platinum at 1700, Silver at 1540, 32 days.
            using (RatingPool once = NewPool(LifeCycle(), new PlayerState(1600f), new PlayerState(1700f), new PlayerState(1540f)))
            using (RatingPool daily = NewPool(LifeCycle(), new PlayerState(1600f), new PlayerState(1700f), new PlayerState(1540f)))
            {
                LeagueChange[] events;
                Assert.AreEqual(2, once.ApplyDecay(32 * Day, out events));
                for (int day = 1; day <= 32; day++) daily.ApplyDecay(day * Day);
                foreach (RatingPool pool in new[] { once, daily })
                {
                    Assert.AreEqual(1550f, pool[0].Rating, "Gold stops at Gold's bound");
                    Assert.AreEqual(1600f, pool[1].Rating, "Platinum loses 100");
                    Assert.AreEqual(1540f, pool[2].Rating, "Silver does not decay");
                    CollectionAssert.AreEqual(new[] { 2, 2, 1 }, new[] { pool[0].League, pool[1].League, pool[2].League });
                }
                Assert.AreEqual(1, events.Length);
                Assert.AreEqual(3, events[0].FromLeague);
                Assert.AreEqual(2, events[0].ToLeague);
            }
            // The stop holds after rounding (-49.5 rounds to -50, which would pass 1550.5), and
            // MinRating is a stop too.
            var rounded = new EloSettings { Rounding = Rounding.HalfAwayFromZero };
            rounded.Decay.GraceDays = 0;
            rounded.Decay.PointsPerDay = 100;
            rounded.Decay.Floor = 1550.5f;
            rounded.Decay.MinRating = 1520f;
            using (RatingPool pool = NewPool(rounded, new PlayerState(1600f), new PlayerState(1510f)))
            {
                Assert.AreEqual(1, pool.ApplyDecay(10 * Day));
                Assert.AreEqual(1550.5f, pool[0].Rating);
                Assert.AreEqual(1510f, pool[1].Rating);
            }
            // Documented inclusive bounds are accepted, the next double refused.
            Assert.IsNull(new EloSettings { DemotionMargin = 1e15 }.Validate());
            Assert.IsNull(new EloSettings { ZeroSumTotal = -1e15 }.Validate());
            Assert.IsNull(new EloSettings { MaxRatingDifference = 2e15 }.Validate());
            StringAssert.Contains("demotion_margin", new EloSettings { DemotionMargin = 1.0000000000000002e15 }.Validate());
        }

        [Test]
        public void SeasonStateSurvivesASaveAndSettingsRoundTrip()
        {
            using (RatingPool pool = NewPool(Ladder(), new PlayerState(1500f), new PlayerState(1560f)))
            {
                pool.Clock = 123.5;
                pool.Apply(new[] { 0 }, new[] { 1 }, new[] { 1f });
                pool.ApplyDecay(50 * Day);
                using (RatingPool copy = RatingPool.FromJson(pool.ToJson()))
                {
                    Assert.AreEqual(123.5, copy.Clock);
                    for (int i = 0; i < 2; i++)
                    {
                        Assert.AreEqual(pool[i].Rating, copy[i].Rating);
                        Assert.AreEqual(pool[i].League, copy[i].League);
                        Assert.AreEqual(pool[i].ProtectedGames, copy[i].ProtectedGames);
                        Assert.AreEqual(pool[i].LastPlayed, copy[i].LastPlayed);
                    }
                }
            }
            EloSettings settings = Ladder();
            settings.SeasonReset.Anchor = ResetAnchor.PoolMean;
            settings.Decay.Floor = 1200f;
            Assert.IsNull(settings.Validate());
            string json = settings.ToJson();
            StringAssert.Contains("\"season_reset\":{\"anchor\":\"pool_mean\",\"keep\":0.5}", json);
            StringAssert.Contains("\"season_keep\":0.25", json);
            settings.SeasonReset.Keep = 1.5;
            StringAssert.Contains("season_reset.keep", settings.Validate());
            settings.SeasonReset.Keep = 0.5;
            settings.Decay.MinLeague = 3;
            StringAssert.Contains("decay.min_league", settings.Validate());
            settings.Decay.MinLeague = null;
            settings.ProtectedGames = -1;
            StringAssert.Contains("protected_games", settings.Validate());
        }

        [Test]
        public void TeamAndFreeForAllListsReportEvents()
        {
            using (RatingPool pool = NewPool(Ladder(), new PlayerState(1540f), new PlayerState(1545f), new PlayerState(1600f), new PlayerState(1600f)))
            {
                var events = new LeagueChange[8];
                int happened = pool.ApplyTeams(new[] { 0, 1, 2, 3 }, new[] { 0, 2, 4 }, new[] { 1f }, ReadOnlySpan<float>.Empty, events);
                Assert.AreEqual(2, happened);
                Assert.AreEqual(0, events[0].Player);
                Assert.AreEqual(1, events[1].Player);
                Assert.IsTrue(events[0].IsPromotion && events[1].IsPromotion);
                Assert.AreEqual(2, pool.LeagueOf(1));
                int ffa = pool.ApplyPlacements(new[] { 0, 1, 2, 3 }, new[] { 0, 4 }, new[] { 1, 2, 3, 4 }, events);
                Assert.GreaterOrEqual(ffa, 0);
                for (int i = 0; i < ffa; i++) Assert.AreEqual(0, events[i].Position);
            }
        }

        [Test]
        public void NextSeasonsRulesKeepRatingsAndPlaceAfresh()
        {
            using (RatingPool pool = NewPool(Ladder(), new PlayerState(1600f), new PlayerState(1460f), new PlayerState(1300f)))
            {
                var next = new EloSettings { KPolicy = KPolicy.League() };
                next.Leagues.Add(new League("Low", 0f, 24));
                next.Leagues.Add(new League("High", 1400f, 24));
                using (var rules = new EloRules(next))
                {
                    pool.SetRules(rules);
                }
                Assert.AreEqual(1600f, pool[0].Rating);
                Assert.AreEqual(1, pool.LeagueOf(0));
                Assert.AreEqual(1, pool.LeagueOf(1));
                Assert.AreEqual(0, pool.LeagueOf(2));
                Assert.AreEqual(2, pool.LeagueCount);
                pool.Apply(new[] { 0 }, new[] { 1 }, new[] { 1f });
                // The new K (24) rates the next match: 1600 beats 1460.
                double expected = 1.0 / (1.0 + Math.Pow(10.0, -140.0 / 400.0));
                Assert.AreEqual(1600.0 + 24.0 * (1.0 - expected), pool[0].Rating, 1e-3);
            }
        }

        [Test]
        public void NewPlayerStatesAreUnplaced()
        {
            var state = new PlayerState(1700f);
            Assert.AreEqual(-1, state.League);
            Assert.AreEqual(1700f, state.PeakRating);
            using (var rules = new EloRules(Ladder()))
            {
                Assert.AreEqual(-1, rules.NewPlayer().League);
            }
        }
    }
}
