using System;
using System.IO;
using NUnit.Framework;

namespace RankingElo.Tests
{
    /// <summary>
    /// What a newcomer meets (issue 19): rules from JSON and from code with object
    /// initializers, league names read back, one exception type per kind of mistake, file
    /// errors that name the path, the operation and the fix, a negative K in the tutorial
    /// call, and pools loaded without a throwaway pool.
    /// </summary>
    [TestFixture]
    public class NewcomerTests
    {
        private static string TempPath(string name)
        {
            return Path.Combine(Path.GetTempPath(), "ranking-elo-newcomer-" + Guid.NewGuid().ToString("N"), name);
        }

        /// <summary>Leagues, seasons and decay set in code give the same rules as the same JSON.</summary>
        [Test]
        public void RulesFromCodeEqualRulesFromJson()
        {
            var settings = new EloSettings
            {
                KPolicy = KPolicy.League(),
                DemotionMargin = 30,
                ProtectedGames = 3,
                Leagues =
                {
                    new League { Name = "Bronze", MinRating = 0, K = 40 },
                    new League { Name = "Silver", MinRating = 1450, K = 32 },
                    new League { Name = "Gold", MinRating = 1550, K = 24, SeasonKeep = 0.25 },
                },
                SeasonReset = { Anchor = ResetAnchor.InitialRating, Keep = 0.5 },
                Decay = { GraceDays = 7, PointsPerDay = 4, MinLeague = 2 },
            };
            const string json = @"{ ""k_policy"": {""policy"": ""league""}, ""demotion_margin"": 30, ""protected_games"": 3,
                ""leagues"": [ {""name"": ""Bronze"", ""min_rating"": 0, ""k"": 40},
                               {""name"": ""Silver"", ""min_rating"": 1450, ""k"": 32},
                               {""name"": ""Gold"", ""min_rating"": 1550, ""k"": 24, ""season_keep"": 0.25} ],
                ""season_reset"": {""anchor"": ""initial_rating"", ""keep"": 0.5},
                ""decay"": {""grace_days"": 7, ""points_per_day"": 4, ""min_league"": 2} }";
            using (var fromCode = new EloRules(settings))
            using (var fromJson = EloRules.FromJson(json))
            {
                Assert.AreEqual(fromJson.ToJson(), fromCode.ToJson());
                Assert.AreEqual(3, fromCode.LeagueCount);
                Assert.AreEqual("Gold", fromCode.LeagueName(2));
                Assert.AreEqual("Bronze", fromJson.LeagueName(fromJson.LeagueOf(1400f)));
            }
        }

        /// <summary>League names read back; a league index outside the rules is an ArgumentOutOfRangeException.</summary>
        [Test]
        public void LeagueNamesReadBack()
        {
            using (var rules = EloRules.FromJson(@"{""leagues"": [{""name"": ""Bronze"", ""min_rating"": 0}, {""name"": ""Silver ★"", ""min_rating"": 1550}]}"))
            {
                Assert.AreEqual("Bronze", rules.LeagueName(0));
                Assert.AreEqual("Silver ★", rules.LeagueName(1));
                var error = Assert.Throws<EloIndexOutOfRangeException>(() => rules.LeagueName(2));
                Assert.AreEqual("index 2 is not a league of the configuration (it has 2, indices from 0)", error.Message);
                Assert.IsInstanceOf<ArgumentOutOfRangeException>(Assert.Catch(() => rules.LeagueName(-1)));
            }
            using (var rules = new EloRules())
            {
                Assert.AreEqual("", rules.LeagueName(0));   // no leagues: everybody is in league 0
                Assert.Throws<EloIndexOutOfRangeException>(() => rules.LeagueName(1));
            }
        }

        /// <summary>Every index mistake throws ArgumentOutOfRangeException, whichever call makes it.</summary>
        [Test]
        public void IndexMistakesThrowOneType()
        {
            using (var rules = new EloRules())
            using (var pool = new RatingPool(rules))
            {
                pool.AddPlayers(8);
                var calls = new TestDelegate[]
                {
                    () => { PlayerState unused = pool[8]; },
                    () => pool.LeagueOf(8),
                    () => pool.RankOf(8),
                    () => pool.Apply(0, 8, MatchResult.Win),
                    () => pool.Apply(new[] { 0, -1 }, new[] { 1, 2 }, new[] { 1f, 1f }),
                    () => pool.GetRatings(new float[4], 6),
                    () => pool.ApplyTeams(new[] { 0, 1, 2, 9 }, new[] { 0, 2, 4 }, new[] { 1f }),
                    () => pool.ApplyPlacements(new[] { 0, 12 }, new[] { 0, 2 }, new[] { 1, 2 }),
                };
                foreach (TestDelegate call in calls)
                {
                    Assert.Throws(Is.InstanceOf<ArgumentOutOfRangeException>(), call);
                }
                var leagueOf = Assert.Throws<EloIndexOutOfRangeException>(() => pool.LeagueOf(8));
                Assert.AreEqual(EloError.IndexOutOfRange, leagueOf.Error);
                StringAssert.StartsWith("index 8 is out of range (the pool has 8 players)", leagueOf.Message);
            }
        }

        /// <summary>File errors name the path, the operation and what to do; all are IOExceptions; TryLoad covers them.</summary>
        [Test]
        public void FileErrorsNameThePathAndTheFix()
        {
            string path = TempPath("ladder.json");
            string folder = Path.GetDirectoryName(path);
            using (var rules = new EloRules())
            using (var pool = new RatingPool(rules))
            {
                pool.AddPlayers(2);
                var save = Assert.Throws<EloIOException>(() => pool.Save(path));
                Assert.AreEqual(EloError.Io, save.Error);
                Assert.AreEqual("cannot save the pool to \"" + path + "\": the folder \"" + folder
                    + "\" does not exist (the engine does not create folders: create it first, or choose another path)", save.Message);
                var season = Assert.Throws<EloIOException>(() => pool.EndSeason(Path.Combine(folder, "season.json")));
                StringAssert.StartsWith("cannot write the season records to", season.Message);
                StringAssert.EndsWith("nothing was reset", season.Message);
                var load = Assert.Throws<EloIOException>(() => pool.Load(path));
                StringAssert.StartsWith("cannot load a pool save from \"" + path + "\": the folder", load.Message);
                Assert.IsInstanceOf<IOException>(Assert.Catch(() => RatingPool.FromFile(path)));

                Directory.CreateDirectory(folder);
                try
                {
                    string why;
                    Assert.IsFalse(pool.TryLoad(path, out why));
                    Assert.AreEqual("cannot load a pool save from \"" + path
                        + "\": the file does not exist (nothing was saved at this path yet: check the path, or start a new pool)", why);
                    File.WriteAllText(path, "{\"format\": \"ranking-elo-pool\"");
                    Assert.IsFalse(pool.TryLoad(path, out why));
                    StringAssert.StartsWith("invalid pool save", why);
                    // One catch (IOException) covers a missing file and a corrupt save.
                    Assert.IsInstanceOf<IOException>(Assert.Catch(() => pool.Load(path)));
                    Assert.IsInstanceOf<EloSaveException>(Assert.Catch(() => pool.Load(path)));
                }
                finally
                {
                    Directory.Delete(folder, true);
                }
            }
        }

        /// <summary>A pool loads from a file or JSON without rules made first; equal pools give equal JSON.</summary>
        [Test]
        public void PoolsLoadWithoutAThrowawayPool()
        {
            string path = TempPath("ladder.json");
            Directory.CreateDirectory(Path.GetDirectoryName(path));
            try
            {
                using (var rules = EloRules.FromJson(@"{""leagues"": [{""name"": ""Bronze"", ""min_rating"": 0}, {""name"": ""Gold"", ""min_rating"": 1510}]}"))
                using (var pool = new RatingPool(rules))
                {
                    pool.AddPlayers(4);
                    pool.Apply(new[] { 0, 2 }, new[] { 1, 3 }, new[] { 1f, 0.5f });
                    pool.Save(path);
                    using (RatingPool loaded = RatingPool.FromFile(path))
                    using (RatingPool copy = RatingPool.FromJson(pool.ToJson()))
                    {
                        Assert.AreEqual(pool.ToJson(), loaded.ToJson());
                        Assert.AreEqual(pool.ToJson(), copy.ToJson());
                        Assert.AreEqual(1, loaded.LeagueOf(0));
                    }
                    Assert.Throws<EloSaveException>(() => RatingPool.FromJson("{}"));
                }
            }
            finally
            {
                Directory.Delete(Path.GetDirectoryName(path), true);
            }
        }

        /// <summary>The tutorial call answers a negative K with NaN, like other bad input; the checked overloads throw.</summary>
        [Test]
        public void NegativeKInTheTutorialCallGivesNaN()
        {
            var backwards = RankingELO.UpdatePlayerRankings(1700f, 1300f, -32f, false);
            Assert.IsTrue(float.IsNaN(backwards.x) && float.IsNaN(backwards.y));
            var error = Assert.Throws<EloArgumentException>(() => RankingELO.UpdatePlayerRankings(1700f, 1300f, -32f, MatchResult.Loss));
            Assert.AreEqual(EloError.NegativeK, error.Error);
            Assert.AreEqual("multiplier must not be negative (got -32)", error.Message);
        }

        /// <summary>Type errors in the configuration JSON are in plain words.</summary>
        [Test]
        public void TypeErrorsAreInPlainWords()
        {
            var error = Assert.Throws<EloArgumentException>(() => EloRules.FromJson(@"{""demotion_margin"": ""30""}"));
            Assert.AreEqual(EloError.InvalidJson, error.Error);
            Assert.AreEqual("invalid configuration JSON: demotion_margin: expected a number (got the string \"30\") at line 1 column 24", error.Message);
        }
    }
}
