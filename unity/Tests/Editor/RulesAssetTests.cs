using System;
using System.Collections.Generic;
using System.Reflection;
using NUnit.Framework;

namespace RankingElo.Tests
{
    /// <summary>
    /// The settings behind the rules asset: Unity-serializable types (what the Inspector,
    /// assets and JsonUtility store), validation with the engine's messages, and the preview
    /// the asset's Inspector plots.
    /// </summary>
    [TestFixture]
    public class RulesAssetTests
    {
        private static readonly Type[] Serialized = { typeof(EloSettings), typeof(ExpectedScoreModel), typeof(KPolicy), typeof(KTier), typeof(League), typeof(PlayerState), typeof(MatchmakerSettings), typeof(SeasonReset), typeof(DecaySettings), typeof(LeagueChange), typeof(SeasonRecord) };

        /// <summary>Every stored field is one Unity serializes: public or [SerializeField], of a primitive, enum, string, List or [Serializable] type; no nullable, no delegate.</summary>
        [Test]
        public void SettingsTypesAreUnitySerializable()
        {
            foreach (Type type in Serialized)
            {
                Assert.IsTrue(type.IsSerializable, type.Name + " needs [Serializable]");
                foreach (FieldInfo field in type.GetFields(BindingFlags.Instance | BindingFlags.Public | BindingFlags.NonPublic))
                {
                    bool stored = field.IsPublic || field.GetCustomAttributes(false).Length > 0 && Array.Exists(field.GetCustomAttributes(false), a => a.GetType().Name.StartsWith("SerializeField", StringComparison.Ordinal));
                    Assert.IsTrue(stored, type.Name + "." + field.Name + " would not be saved by Unity");
                    Type t = field.FieldType;
                    if (t.IsGenericType && t.GetGenericTypeDefinition() == typeof(List<>)) t = t.GetGenericArguments()[0];
                    Assert.IsNull(Nullable.GetUnderlyingType(t), type.Name + "." + field.Name + " is nullable");
                    Assert.IsFalse(typeof(Delegate).IsAssignableFrom(t), type.Name + "." + field.Name + " is a delegate");
                    Assert.IsTrue(t.IsPrimitive || t.IsEnum || t == typeof(string) || Array.IndexOf(Serialized, t) >= 0, type.Name + "." + field.Name + ": " + t.Name + " is not serializable");
                }
            }
        }

        /// <summary>The nullable views over the stored fields round trip.</summary>
        [Test]
        public void OptionalSettingsKeepTheirValues()
        {
            var settings = new EloSettings { MaxRatingDifference = 400, MinRating = 100f, ZeroSumTotal = null };
            Assert.AreEqual(400.0, settings.MaxRatingDifference);
            Assert.AreEqual(100f, settings.MinRating);
            Assert.IsNull(settings.ZeroSumTotal);
            settings.MinRating = null;
            Assert.IsNull(settings.MinRating);
            var tier = new KTier(30, 40);
            Assert.AreEqual(30.0, tier.Below);
            Assert.IsNull(KTier.Otherwise(20).Below);
            var league = new League("Gold", 200f, 100) { VictoryBonus = 2 };
            Assert.AreEqual(2.0, league.VictoryBonus);
            Assert.IsNull(league.ScoreShareBonus);
            Assert.AreEqual(KPolicyKind.Fide, KPolicy.Fide().Kind);
            Assert.AreEqual(ExpectedScoreKind.Normal, ExpectedScoreModel.Normal(250).Kind);
            Assert.AreEqual(250.0, ExpectedScoreModel.Normal(250).Parameter);
        }

        /// <summary>
        /// A curve changed in place, as the Inspector changes it, starts from its own default
        /// parameter (400 is a logistic scale: as a linear slope per rating point it makes
        /// every expected score 0 or 1); a curve
        /// saved before the parameter's curve was kept keeps its parameter.
        /// </summary>
        [Test]
        public void ACurveChangedInTheInspectorGetsItsDefaultParameter()
        {
            FieldInfo kind = typeof(ExpectedScoreModel).GetField("kind", BindingFlags.Instance | BindingFlags.NonPublic);
            FieldInfo parameterKind = typeof(ExpectedScoreModel).GetField("parameterKind", BindingFlags.Instance | BindingFlags.NonPublic);
            var settings = new EloSettings();
            kind.SetValue(settings.ExpectedScore, ExpectedScoreKind.Linear);
            // (A slope of 400 per rating point: every match is decided before it starts.)
            Assert.AreEqual(400.0, settings.ExpectedScore.Parameter, "the Inspector changes only the curve");
            Assert.IsTrue(settings.ExpectedScore.FollowKind());
            Assert.AreEqual(0.001, settings.ExpectedScore.Parameter);
            Assert.IsNull(settings.Validate(), "the linear default is valid");
            kind.SetValue(settings.ExpectedScore, ExpectedScoreKind.Normal);
            Assert.IsTrue(settings.ExpectedScore.FollowKind());
            Assert.AreEqual(200.0, settings.ExpectedScore.Parameter);
            Assert.IsFalse(settings.ExpectedScore.FollowKind(), "nothing to follow twice");
            // FIDE's table has no parameter: the Inspector's field goes to 0, and the JSON has none.
            kind.SetValue(settings.ExpectedScore, ExpectedScoreKind.FideTable);
            Assert.IsTrue(settings.ExpectedScore.FollowKind());
            Assert.AreEqual(0.0, settings.ExpectedScore.Parameter);
            Assert.IsNull(settings.Validate(), "FIDE's table is valid");
            StringAssert.Contains("\"expected_score\":{\"model\":\"fide_table\"}", settings.ToJson());
            // An asset saved before: its parameter stays.
            ExpectedScoreModel old = ExpectedScoreModel.Linear(0.002);
            parameterKind.SetValue(old, -1);
            Assert.IsFalse(old.FollowKind());
            Assert.AreEqual(0.002, old.Parameter);
            foreach (ExpectedScoreKind each in Enum.GetValues(typeof(ExpectedScoreKind)))
            {
                ExpectedScoreModel made = each == ExpectedScoreKind.Linear ? ExpectedScoreModel.Linear()
                    : each == ExpectedScoreKind.Normal ? ExpectedScoreModel.Normal()
                    : each == ExpectedScoreKind.FideTable ? ExpectedScoreModel.FideTable()
                    : ExpectedScoreModel.Logistic();
                Assert.AreEqual(ExpectedScoreModel.DefaultParameter(each), made.Parameter);
            }
        }

        /// <summary>Validation gives the engine's own message, naming the setting.</summary>
        [Test]
        public void ValidationUsesTheEnginesMessages()
        {
            Assert.IsNull(new EloSettings().Validate());
            string message = new EloSettings { VictoryBonus = -1 }.Validate();
            StringAssert.Contains("victory_bonus", message);
            StringAssert.Contains("zero_sum_total", new EloSettings { ZeroSumTotal = 1e300 }.Validate());
            var unordered = new EloSettings();
            unordered.Leagues.Add(new League("High", 500f, 10));
            unordered.Leagues.Add(new League("Low", 100f, 10));
            StringAssert.Contains("leagues[1].min_rating", unordered.Validate());
            StringAssert.Contains("min_rating", new EloSettings { ZeroSumTotal = 1000, MinRating = 0 }.Validate());
        }

        /// <summary>The preview is seeded and orders players by skill under sensible rules.</summary>
        [Test]
        public void PreviewIsSeededAndMeaningful()
        {
            var settings = new EloSettings { KPolicy = KPolicy.League() };
            settings.Leagues.Add(new League("Bronze", 0f, 40));
            settings.Leagues.Add(new League("Silver", 1550f, 24));
            RulesPreview.Result first = RulesPreview.Run(settings, 200, 4000, 1);
            RulesPreview.Result again = RulesPreview.Run(settings, 200, 4000, 1);
            CollectionAssert.AreEqual(first.Ratings, again.Ratings);
            Assert.AreEqual(4000, first.Matches);
            Assert.AreEqual(200, first.LeagueCounts[0] + first.LeagueCounts[1]);
            Assert.AreEqual(new[] { "Bronze", "Silver" }, first.LeagueNames);
            Assert.Greater(first.Spearman, 0.5f, "ratings should order players by skill");
            Assert.Throws<EloArgumentException>(() => RulesPreview.Run(new EloSettings { VictoryBonus = -1 }, 10, 10, 1));
        }

        /// <summary>
        /// The Inspector's previews run off the GUI pass, once per change: the first request
        /// answers at once and starts a run; repeated requests with unchanged settings start
        /// nothing; a change shows the previous preview until its own is ready; edits made
        /// during a run are played together after it.
        /// </summary>
        [Test]
        public void InspectorPreviewsRunOncePerChangeOffTheGuiPass()
        {
            var hold = new System.Threading.ManualResetEventSlim(true);
            var runner = new RulesPreviewRunner(60, 600, 1, hold);
            var settings = new EloSettings();
            bool current;
            Assert.IsNull(runner.Request(settings, out current), "nothing is ready at first: the request does not play the season");
            Assert.IsFalse(current);
            runner.Wait();
            RulesPreview.Result first = runner.Request(settings, out current);
            Assert.IsTrue(current);
            CollectionAssert.AreEqual(RulesPreview.Run(settings, 60, 600, 1).Ratings, first.Ratings, "the same preview as played directly");
            for (int pass = 0; pass < 5; pass++) runner.Request(settings, out current);
            Assert.AreEqual(1, runner.Runs, "unchanged settings are not played again");

            hold.Reset();
            settings.KPolicy = KPolicy.Constant(16);
            Assert.AreSame(first, runner.Request(settings, out current), "the previous preview is shown while the new one plays");
            Assert.IsFalse(current);
            settings.KPolicy = KPolicy.Constant(20);
            runner.Request(settings, out current);
            Assert.AreEqual(2, runner.Runs, "an edit during a run waits for it");
            Assert.IsTrue(runner.IsRunning);
            hold.Set();
            runner.Wait();
            runner.Request(settings, out current);
            Assert.AreEqual(3, runner.Runs, "then the latest settings are played");
            runner.Wait();
            RulesPreview.Result latest = runner.Request(settings, out current);
            Assert.IsTrue(current);
            CollectionAssert.AreEqual(RulesPreview.Run(settings, 60, 600, 1).Ratings, latest.Ratings);
            Assert.AreEqual(3, runner.Runs);
        }
    }
}
