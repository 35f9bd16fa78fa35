using System;
using System.Collections.Generic;

namespace RankingElo
{
    /// <summary>How the expected score is computed from two ratings.</summary>
    public sealed class ExpectedScoreModel
    {
        private readonly string model;
        private readonly string parameter;
        private readonly double value;

        private ExpectedScoreModel(string model, string parameter, double value)
        {
            this.model = model;
            this.parameter = parameter;
            this.value = value;
        }

        /// <summary>The classic Elo curve <c>1 / (1 + 10^((R_B - R_A) / c))</c>.</summary>
        /// <param name="c">Rating difference that multiplies the odds by ten (400 in chess).</param>
        /// <returns>The model.</returns>
        public static ExpectedScoreModel Logistic(double c = 400)
        {
            return new ExpectedScoreModel("logistic", "c", c);
        }

        /// <summary>The clamped line <c>0.5 + k (R_A - R_B)</c>.</summary>
        /// <param name="k">Slope per rating point.</param>
        /// <returns>The model.</returns>
        public static ExpectedScoreModel Linear(double k = 0.001)
        {
            return new ExpectedScoreModel("linear", "k", k);
        }

        /// <summary>Elo's original normal model <c>Phi((R_A - R_B) / (beta sqrt 2))</c>.</summary>
        /// <param name="beta">Per-player performance spread.</param>
        /// <returns>The model.</returns>
        public static ExpectedScoreModel Normal(double beta = 200)
        {
            return new ExpectedScoreModel("normal", "beta", beta);
        }

        internal void Write(Json json)
        {
            json.Name("expected_score").BeginObject().Field("model", model).Field(parameter, value).EndObject();
        }
    }

    /// <summary>One tier of a tiered K policy: K applies below a bound (the last tier has none).</summary>
    public struct KTier
    {
        /// <summary>The tier applies below this many games (or this rating); null on the last tier.</summary>
        public double? Below;

        /// <summary>K in this tier.</summary>
        public double K;

        /// <summary>A bounded tier.</summary>
        /// <param name="below">Upper bound (exclusive).</param>
        /// <param name="k">K in the tier.</param>
        public KTier(double below, double k)
        {
            Below = below;
            K = k;
        }

        /// <summary>The open-ended last tier.</summary>
        /// <param name="k">K in the tier.</param>
        /// <returns>The tier.</returns>
        public static KTier Otherwise(double k)
        {
            return new KTier { Below = null, K = k };
        }
    }

    /// <summary>How a player's K factor is chosen.</summary>
    public sealed class KPolicy
    {
        private readonly Action<Json> write;

        private KPolicy(Action<Json> write)
        {
            this.write = write;
        }

        /// <summary>The same K for everybody.</summary>
        /// <param name="k">The K factor.</param>
        /// <returns>The policy.</returns>
        public static KPolicy Constant(double k = 32)
        {
            return new KPolicy(json => json.Field("policy", "constant").Field("k", k));
        }

        /// <summary>FIDE's rules: 40 for new players and juniors under 2300, 10 once 2400 was reached, else 20.</summary>
        /// <param name="periodRule">Apply the 700 rule over a rating period (<see cref="PlayerState.PeriodGames"/>).</param>
        /// <returns>The policy.</returns>
        public static KPolicy Fide(bool periodRule = false)
        {
            return new KPolicy(json => json.Field("policy", "fide").Field("period_rule", periodRule));
        }

        /// <summary>K by games played, for example 40 below 30 games, then 20.</summary>
        /// <param name="tiers">Tiers by increasing bound; the last one from <see cref="KTier.Otherwise"/>.</param>
        /// <returns>The policy.</returns>
        public static KPolicy GamesPlayed(params KTier[] tiers)
        {
            return Tiered("games_played", tiers);
        }

        /// <summary>K by rating, for example 32 below 2100, 24 below 2400, then 16.</summary>
        /// <param name="tiers">Tiers by increasing bound; the last one from <see cref="KTier.Otherwise"/>.</param>
        /// <returns>The policy.</returns>
        public static KPolicy RatingBands(params KTier[] tiers)
        {
            return Tiered("rating_bands", tiers);
        }

        /// <summary>K from the player's league (<see cref="EloSettings.Leagues"/>).</summary>
        /// <returns>The policy.</returns>
        public static KPolicy League()
        {
            return new KPolicy(json => json.Field("policy", "league"));
        }

        private static KPolicy Tiered(string name, KTier[] tiers)
        {
            if (tiers == null) throw new ArgumentNullException("tiers");
            var copy = (KTier[])tiers.Clone();
            return new KPolicy(json =>
            {
                json.Field("policy", name).BeginArray("tiers");
                foreach (KTier tier in copy)
                {
                    json.BeginObject().Field("below", tier.Below).Field("k", tier.K).EndObject();
                }
                json.EndArray();
            });
        }

        internal void Write(Json json)
        {
            json.Name("k_policy").BeginObject();
            write(json);
            json.EndObject();
        }
    }

    /// <summary>How the two players' K combine.</summary>
    public enum KCombine
    {
        /// <summary>Each player uses their own K.</summary>
        PerPlayer,
        /// <summary>Both use the average of the two K (zero-sum).</summary>
        Average,
    }

    /// <summary>How rating changes are rounded.</summary>
    public enum Rounding
    {
        /// <summary>Fractional ratings.</summary>
        None,
        /// <summary>Toward zero (integer Elo as <c>(int)</c> casts do it).</summary>
        Truncate,
        /// <summary>To the nearest integer, halves away from zero (FIDE).</summary>
        HalfAwayFromZero,
    }

    /// <summary>Which score enters the K term when a result is reported as points (004).</summary>
    public enum PointsKTerm
    {
        /// <summary>The points share P / (P + P_opponent): 004's first way, the default.</summary>
        Share,
        /// <summary>The match result (1, 0.5 or 0): 004's extended formula.</summary>
        Result,
    }

    /// <summary>A league: a rating range with its own K, and optionally its own bonuses.</summary>
    public sealed class League
    {
        /// <summary>Creates a league.</summary>
        /// <param name="name">Display name.</param>
        /// <param name="minRating">Lowest rating of the league (ratings below the first league's bound still belong to it).</param>
        /// <param name="k">K under the league K policy.</param>
        public League(string name, float minRating, double k)
        {
            if (name == null) throw new ArgumentNullException("name");
            Name = name;
            MinRating = minRating;
            K = k;
        }

        /// <summary>Display name.</summary>
        public string Name { get; private set; }

        /// <summary>Lowest rating of the league.</summary>
        public float MinRating { get; private set; }

        /// <summary>K under the league K policy.</summary>
        public double K { get; private set; }

        /// <summary>Score-share bonus L for this league's players (the settings' when null).</summary>
        public double? ScoreShareBonus { get; set; }

        /// <summary>Victory bonus V for this league's players (the settings' when null).</summary>
        public double? VictoryBonus { get; set; }
    }

    /// <summary>
    /// Every setting of the rating engine, in code. <see cref="ToJson"/> gives the JSON that
    /// <see cref="EloRules.FromJson"/> reads; the native side validates it and names any bad
    /// field.
    /// </summary>
    public sealed class EloSettings
    {
        /// <summary>Creates the default settings: logistic (c = 400), K = 32, initial rating 1500.</summary>
        public EloSettings()
        {
            ExpectedScore = ExpectedScoreModel.Logistic();
            KPolicy = KPolicy.Constant();
            InitialRating = 1500f;
            Leagues = new List<League>();
        }

        /// <summary>Expected-score model.</summary>
        public ExpectedScoreModel ExpectedScore { get; set; }

        /// <summary>Cap on the rating difference fed to the model (FIDE: 400); null for none.</summary>
        public double? MaxRatingDifference { get; set; }

        /// <summary>How each player's K is chosen.</summary>
        public KPolicy KPolicy { get; set; }

        /// <summary>Own K per player, or the average.</summary>
        public KCombine KCombine { get; set; }

        /// <summary>Win-streak penalty alpha; 0 for none.</summary>
        public double StreakAlpha { get; set; }

        /// <summary>Score of the K term for results given as points: the share (default) or the result.</summary>
        public PointsKTerm PointsKTerm { get; set; }

        /// <summary>Score-share bonus L (points share times L).</summary>
        public double ScoreShareBonus { get; set; }

        /// <summary>Victory bonus V, paid on the match result (1 a win, 0.5 a draw, 0 a defeat): ratings creep up by about V per match.</summary>
        public double VictoryBonus { get; set; }

        /// <summary>Rounding of rating changes.</summary>
        public Rounding Rounding { get; set; }

        /// <summary>Rating floor; null for none.</summary>
        public float? MinRating { get; set; }

        /// <summary>Rating of a new player.</summary>
        public float InitialRating { get; set; }

        /// <summary>Leagues, lowest first.</summary>
        public List<League> Leagues { get; private set; }

        /// <summary>Zero-sum pools keep their rating total at this value; null for off.</summary>
        public double? ZeroSumTotal { get; set; }

        /// <summary>The settings as the engine's JSON configuration.</summary>
        /// <returns>The JSON text.</returns>
        public string ToJson()
        {
            var json = new Json().BeginObject();
            (ExpectedScore ?? ExpectedScoreModel.Logistic()).Write(json);
            json.Field("max_rating_difference", MaxRatingDifference);
            (KPolicy ?? KPolicy.Constant()).Write(json);
            json.Field("k_combine", KCombine == KCombine.Average ? "average" : "per_player");
            json.Field("streak_alpha", StreakAlpha);
            json.Field("points_k_term", PointsKTerm == PointsKTerm.Result ? "result" : "share");
            json.Field("score_share_bonus", ScoreShareBonus);
            json.Field("victory_bonus", VictoryBonus);
            json.Field("rounding", Rounding == Rounding.Truncate ? "truncate" : Rounding == Rounding.HalfAwayFromZero ? "half_away_from_zero" : "none");
            json.Field("min_rating", MinRating.HasValue ? (double?)MinRating.Value : null);
            json.Field("initial_rating", InitialRating);
            json.BeginArray("leagues");
            foreach (League league in Leagues)
            {
                json.BeginObject().Field("name", league.Name).Field("min_rating", league.MinRating).Field("k", league.K)
                    .Field("score_share_bonus", league.ScoreShareBonus).Field("victory_bonus", league.VictoryBonus).EndObject();
            }
            json.EndArray();
            json.Field("zero_sum_total", ZeroSumTotal);
            return json.EndObject().ToString();
        }
    }
}
