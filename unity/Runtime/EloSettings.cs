using System;
using System.Collections.Generic;
#if UNITY_5_3_OR_NEWER
using UnityEngine;
#endif

namespace RankingElo
{
    /// <summary>The curve of an <see cref="ExpectedScoreModel"/>.</summary>
    public enum ExpectedScoreKind
    {
        /// <summary>Base-10 logistic (parameter <c>c</c>).</summary>
        Logistic,
        /// <summary>Clamped line (parameter <c>k</c>).</summary>
        Linear,
        /// <summary>Normal CDF (parameter <c>beta</c>).</summary>
        Normal,
        /// <summary>FIDE's table 8.1.2: the expected score in hundredths by rating difference (no parameter).</summary>
        FideTable,
    }

    /// <summary>How the expected score is computed from two ratings (serializable: edit it in the Inspector).</summary>
    [Serializable]
    public sealed class ExpectedScoreModel
    {
        [Tooltip("The curve: Logistic (parameter c, 400 in chess), Linear (parameter k, the slope per rating point), Normal (parameter beta, each player's performance spread) or FideTable (FIDE's table 8.1.2, no parameter). Changing it in the Inspector sets the new curve's default parameter.")]
        [SerializeField] private ExpectedScoreKind kind;
        [Tooltip("The curve's parameter: c for Logistic (rating difference that multiplies the odds by ten), k for Linear (slope per rating point), beta for Normal (performance spread).")]
        [SerializeField] private double parameter = 400;
        // The curve the parameter was set for: when the Inspector changes the curve, the
        // parameter becomes the new curve's default (400 is a logistic scale, no linear slope).
        // -1 in an asset saved before this field: its parameter is kept.
        [SerializeField] private int parameterKind = -1;

        /// <summary>The classic Elo curve with c = 400.</summary>
        public ExpectedScoreModel()
        {
            parameterKind = (int)ExpectedScoreKind.Logistic;
        }

        private ExpectedScoreModel(ExpectedScoreKind kind, double parameter)
        {
            this.kind = kind;
            this.parameter = parameter;
            parameterKind = (int)kind;
        }

        /// <summary>A curve's default parameter: c = 400 (logistic), k = 0.001 (linear), beta = 200 (normal); 0 for FIDE's table, which has none.</summary>
        /// <param name="kind">The curve.</param>
        /// <returns>The parameter the curve's factory method uses by default.</returns>
        public static double DefaultParameter(ExpectedScoreKind kind)
        {
            if (kind == ExpectedScoreKind.Linear)
            {
                return 0.001;
            }
            if (kind == ExpectedScoreKind.FideTable)
            {
                return 0;
            }
            return kind == ExpectedScoreKind.Normal ? 200 : 400;
        }

        /// <summary>
        /// After the curve was changed in place (the Inspector writes the serialized field):
        /// gives the new curve its default parameter, since the old curve's makes no sense for
        /// it. The rules asset calls it after each edit.
        /// </summary>
        /// <returns>Whether the parameter was reset.</returns>
        internal bool FollowKind()
        {
            if (parameterKind == (int)kind)
            {
                return false;
            }
            bool changed = parameterKind >= 0;
            if (changed)
            {
                parameter = DefaultParameter(kind);
            }
            parameterKind = (int)kind;
            return changed;
        }

        /// <summary>The curve.</summary>
        public ExpectedScoreKind Kind
        {
            get { return kind; }
        }

        /// <summary>The curve's parameter: <c>c</c> (logistic), <c>k</c> (linear) or <c>beta</c> (normal).</summary>
        public double Parameter
        {
            get { return parameter; }
        }

        /// <summary>The classic Elo curve <c>1 / (1 + 10^((R_B - R_A) / c))</c>.</summary>
        /// <param name="c">Rating difference that multiplies the odds by ten (400 in chess).</param>
        /// <returns>The model.</returns>
        public static ExpectedScoreModel Logistic(double c = 400)
        {
            return new ExpectedScoreModel(ExpectedScoreKind.Logistic, c);
        }

        /// <summary>The clamped line <c>0.5 + k (R_A - R_B)</c>.</summary>
        /// <param name="k">Slope per rating point.</param>
        /// <returns>The model.</returns>
        public static ExpectedScoreModel Linear(double k = 0.001)
        {
            return new ExpectedScoreModel(ExpectedScoreKind.Linear, k);
        }

        /// <summary>Elo's original normal model <c>Phi((R_A - R_B) / (beta sqrt 2))</c>.</summary>
        /// <param name="beta">Per-player performance spread.</param>
        /// <returns>The model.</returns>
        public static ExpectedScoreModel Normal(double beta = 200)
        {
            return new ExpectedScoreModel(ExpectedScoreKind.Normal, beta);
        }

        /// <summary>
        /// FIDE's table 8.1.2 (FIDE Rating Regulations, 2024): the expected score in hundredths by
        /// rating difference, with the K term computed in exact hundredths so that halves round as
        /// FIDE rounds them. With <see cref="EloSettings.MaxRatingDifference"/> 400 it is FIDE's
        /// 400-point rule.
        /// </summary>
        /// <returns>The model.</returns>
        public static ExpectedScoreModel FideTable()
        {
            return new ExpectedScoreModel(ExpectedScoreKind.FideTable, 0);
        }

        internal void Write(Json json)
        {
            if (kind == ExpectedScoreKind.FideTable)
            {
                json.Name("expected_score").BeginObject().Field("model", "fide_table").EndObject();
                return;
            }
            string model = kind == ExpectedScoreKind.Linear ? "linear" : kind == ExpectedScoreKind.Normal ? "normal" : "logistic";
            string name = kind == ExpectedScoreKind.Linear ? "k" : kind == ExpectedScoreKind.Normal ? "beta" : "c";
            json.Name("expected_score").BeginObject().Field("model", model).Field(name, parameter).EndObject();
        }
    }

    /// <summary>One tier of a tiered K policy: K applies below a bound (the last tier has none).</summary>
    [Serializable]
    public struct KTier
    {
        [SerializeField] private bool bounded;
        [SerializeField] private double below;

        /// <summary>K in this tier.</summary>
        public double K;

        /// <summary>A bounded tier.</summary>
        /// <param name="below">Upper bound (exclusive).</param>
        /// <param name="k">K in the tier.</param>
        public KTier(double below, double k)
        {
            bounded = true;
            this.below = below;
            K = k;
        }

        /// <summary>The tier applies below this many games (or this rating); null on the last tier.</summary>
        public double? Below
        {
            get { return bounded ? below : (double?)null; }
            set
            {
                bounded = value.HasValue;
                below = value.GetValueOrDefault();
            }
        }

        /// <summary>The open-ended last tier.</summary>
        /// <param name="k">K in the tier.</param>
        /// <returns>The tier.</returns>
        public static KTier Otherwise(double k)
        {
            return new KTier { K = k };
        }
    }

    /// <summary>The rule of a <see cref="KPolicy"/>.</summary>
    public enum KPolicyKind
    {
        /// <summary>The same K for everybody.</summary>
        Constant,
        /// <summary>FIDE's rules.</summary>
        Fide,
        /// <summary>K by games played.</summary>
        GamesPlayed,
        /// <summary>K by rating.</summary>
        RatingBands,
        /// <summary>K from the player's league.</summary>
        League,
    }

    /// <summary>How a player's K factor is chosen (serializable: edit it in the Inspector).</summary>
    [Serializable]
    public sealed class KPolicy
    {
        [SerializeField] private KPolicyKind kind;
        [Min(0f)] [SerializeField] private double k = 32;
        [SerializeField] private bool periodRule;
        [SerializeField] private List<KTier> tiers = new List<KTier>();

        /// <summary>A constant K of 32.</summary>
        public KPolicy()
        {
        }

        private KPolicy(KPolicyKind kind)
        {
            this.kind = kind;
        }

        /// <summary>The rule.</summary>
        public KPolicyKind Kind
        {
            get { return kind; }
        }

        /// <summary>K of the constant policy.</summary>
        public double K
        {
            get { return k; }
        }

        /// <summary>Whether the FIDE policy applies the 700 rule.</summary>
        public bool PeriodRule
        {
            get { return periodRule; }
        }

        /// <summary>The tiers of the games-played and rating-band policies, by increasing bound.</summary>
        public IList<KTier> Tiers
        {
            get { return tiers.AsReadOnly(); }
        }

        /// <summary>The same K for everybody.</summary>
        /// <param name="k">The K factor.</param>
        /// <returns>The policy.</returns>
        public static KPolicy Constant(double k = 32)
        {
            return new KPolicy(KPolicyKind.Constant) { k = k };
        }

        /// <summary>FIDE's rules: 40 for new players and juniors under 2300, 10 once 2400 was reached (for good), else 20.</summary>
        /// <param name="periodRule">Apply the 700 rule over a rating period (<see cref="PlayerState.PeriodGames"/>).</param>
        /// <returns>The policy.</returns>
        public static KPolicy Fide(bool periodRule = false)
        {
            return new KPolicy(KPolicyKind.Fide) { periodRule = periodRule };
        }

        /// <summary>K by games played, for example 40 below 30 games, then 20.</summary>
        /// <param name="tiers">Tiers by increasing bound; the last one from <see cref="KTier.Otherwise"/>.</param>
        /// <returns>The policy.</returns>
        public static KPolicy GamesPlayed(params KTier[] tiers)
        {
            return Tiered(KPolicyKind.GamesPlayed, tiers);
        }

        /// <summary>K by rating, for example 32 below 2100, 24 below 2400, then 16.</summary>
        /// <param name="tiers">Tiers by increasing bound; the last one from <see cref="KTier.Otherwise"/>.</param>
        /// <returns>The policy.</returns>
        public static KPolicy RatingBands(params KTier[] tiers)
        {
            return Tiered(KPolicyKind.RatingBands, tiers);
        }

        /// <summary>K from the player's league (<see cref="EloSettings.Leagues"/>).</summary>
        /// <returns>The policy.</returns>
        public static KPolicy League()
        {
            return new KPolicy(KPolicyKind.League);
        }

        private static KPolicy Tiered(KPolicyKind kind, KTier[] tiers)
        {
            if (tiers == null) throw new ArgumentNullException("tiers");
            return new KPolicy(kind) { tiers = new List<KTier>(tiers) };
        }

        internal void Write(Json json)
        {
            json.Name("k_policy").BeginObject();
            switch (kind)
            {
                case KPolicyKind.Fide:
                    json.Field("policy", "fide").Field("period_rule", periodRule);
                    break;
                case KPolicyKind.GamesPlayed:
                case KPolicyKind.RatingBands:
                    json.Field("policy", kind == KPolicyKind.GamesPlayed ? "games_played" : "rating_bands").BeginArray("tiers");
                    foreach (KTier tier in tiers ?? new List<KTier>())
                    {
                        json.BeginObject().Field("below", tier.Below).Field("k", tier.K).EndObject();
                    }
                    json.EndArray();
                    break;
                case KPolicyKind.League:
                    json.Field("policy", "league");
                    break;
                default:
                    json.Field("policy", "constant").Field("k", k);
                    break;
            }
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

    /// <summary>What the rounding applies to.</summary>
    public enum RoundingTarget
    {
        /// <summary>The change, then added: <c>R + round(delta)</c> (FIDE; the default).</summary>
        Change,
        /// <summary>The new rating: <c>round(R + delta)</c>.</summary>
        Rating,
    }

    /// <summary>Which score enters the K term when a result is reported as points (004).</summary>
    public enum PointsKTerm
    {
        /// <summary>The points share P / (P + P_opponent): 004's first way, the default.</summary>
        Share,
        /// <summary>The match result (1, 0.5 or 0): 004's extended formula.</summary>
        Result,
    }

    /// <summary>How a team's rating is made from its members' ratings.</summary>
    public enum TeamRating
    {
        /// <summary>The members' mean rating.</summary>
        Mean,
        /// <summary>The members' ratings summed.</summary>
        Sum,
        /// <summary>The mean weighted by the members' weights (for example time played).</summary>
        WeightedMean,
    }

    /// <summary>How a team's rating change is shared among its members.</summary>
    public enum TeamSplit
    {
        /// <summary>Every member gets the team's full K term.</summary>
        Equal,
        /// <summary>Member i gets n * w_i / sum(w) times the K term.</summary>
        Weights,
    }

    /// <summary>What a free-for-all's summed pair terms are divided by.</summary>
    public enum PlacementNormalization
    {
        /// <summary>N - 1: a free-for-all moves a rating about as much as one match.</summary>
        NMinusOne,
        /// <summary>None: every virtual pair counts as a full match.</summary>
        None,
    }

    /// <summary>
    /// A league: a rating range with its own K, and optionally its own bonuses and season
    /// keep (serializable). Build it with the constructor or an object initializer:
    /// <c>new League { Name = "Gold", MinRating = 1550, K = 24 }</c>.
    /// </summary>
    [Serializable]
    public sealed class League
    {
        [SerializeField] private string name = "League";
        [SerializeField] private float minRating;
        [Min(0f)] [SerializeField] private double k = 32;
        [SerializeField] private bool overridesScoreShareBonus;
        [Min(0f)] [SerializeField] private double scoreShareBonus;
        [SerializeField] private bool overridesVictoryBonus;
        [Min(0f)] [SerializeField] private double victoryBonus;
        [SerializeField] private bool overridesSeasonKeep;
        [Range(0f, 1f)] [SerializeField] private double seasonKeep = 0.5;

        /// <summary>A league named "League" from rating 0 with K 32 (what the Inspector adds).</summary>
        public League()
        {
        }

        /// <summary>Creates a league.</summary>
        /// <param name="name">Display name.</param>
        /// <param name="minRating">Lowest rating of the league (ratings below the first league's bound still belong to it).</param>
        /// <param name="k">K under the league K policy.</param>
        public League(string name, float minRating, double k)
        {
            if (name == null) throw new ArgumentNullException("name");
            this.name = name;
            this.minRating = minRating;
            this.k = k;
        }

        /// <summary>Display name (<see cref="EloRules.LeagueName"/> reads it back from the rules).</summary>
        /// <exception cref="ArgumentNullException">Set to null.</exception>
        public string Name
        {
            get { return name; }
            set
            {
                if (value == null) throw new ArgumentNullException("value");
                name = value;
            }
        }

        /// <summary>Lowest rating of the league (ratings below the first league's bound still belong to it).</summary>
        public float MinRating
        {
            get { return minRating; }
            set { minRating = value; }
        }

        /// <summary>K under the league K policy (default 32); unused under the other K policies.</summary>
        public double K
        {
            get { return k; }
            set { k = value; }
        }

        /// <summary>Score-share bonus L for this league's players (the settings' when null).</summary>
        public double? ScoreShareBonus
        {
            get { return overridesScoreShareBonus ? scoreShareBonus : (double?)null; }
            set
            {
                overridesScoreShareBonus = value.HasValue;
                scoreShareBonus = value.GetValueOrDefault();
            }
        }

        /// <summary>Victory bonus V for this league's players (the settings' when null).</summary>
        public double? VictoryBonus
        {
            get { return overridesVictoryBonus ? victoryBonus : (double?)null; }
            set
            {
                overridesVictoryBonus = value.HasValue;
                victoryBonus = value.GetValueOrDefault();
            }
        }

        /// <summary>Share of the distance to the anchor this league's players keep at a season's end, 0 to 1 (the settings' <see cref="SeasonReset.Keep"/> when null).</summary>
        public double? SeasonKeep
        {
            get { return overridesSeasonKeep ? seasonKeep : (double?)null; }
            set
            {
                overridesSeasonKeep = value.HasValue;
                seasonKeep = value.GetValueOrDefault(0.5);
            }
        }
    }

    /// <summary>
    /// Every setting of the rating engine, in code. <see cref="ToJson"/> gives the JSON that
    /// <see cref="EloRules.FromJson"/> reads; the native side validates it and names any bad
    /// field.
    /// </summary>
    [Serializable]
    public sealed class EloSettings
    {
        [Tooltip("How the expected score is computed from two ratings: the curve and its parameter.")]
        [SerializeField] private ExpectedScoreModel expectedScore = new ExpectedScoreModel();
        [Tooltip("Caps the rating difference fed to the expected-score curve (FIDE's 400-point rule).")]
        [SerializeField] private bool capsRatingDifference;
        [Tooltip("The cap on the rating difference, when capped (FIDE: 400).")]
        [SerializeField] private double maxRatingDifference = 400;
        [Tooltip("Players rated at least the exemption rating count the whole difference, uncapped (FIDE since October 2025: 2650). Needs the cap.")]
        [SerializeField] private bool exemptsFromCap;
        [Tooltip("The rating from which players are exempt from the cap, when they are (FIDE: 2650).")]
        [SerializeField] private float maxRatingDifferenceExemptFrom = 2650f;
        [Tooltip("How each player's K (the most a match moves a rating) is chosen: constant, FIDE's tiers, by games or by rating.")]
        [SerializeField] private KPolicy kPolicy = new KPolicy();
        [Tooltip("Whether each player uses their own K, or both use the average of the two.")]
        [SerializeField] private KCombine kCombine;
        [Tooltip("Win-streak penalty alpha: a player on a streak of n wins gains less per win (0: none).")]
        [Min(0f)] [SerializeField] private double streakAlpha;
        [Tooltip("For results given as points: whether the K term scores the points share (default) or the match result.")]
        [SerializeField] private PointsKTerm pointsKTerm;
        [Tooltip("Score-share bonus L: the winner's share of the points times L, added to the change.")]
        [Min(0f)] [SerializeField] private double scoreShareBonus;
        [Tooltip("Victory bonus V, paid on the result (1 a win, 0.5 a draw): ratings creep up by about V per match.")]
        [Min(0f)] [SerializeField] private double victoryBonus;
        [Tooltip("How rating changes are rounded (none, or to whole points).")]
        [SerializeField] private Rounding rounding;
        [Tooltip("What the rounding applies to: the change (FIDE, the default) or the new rating. They differ only for fractional ratings.")]
        [SerializeField] private RoundingTarget roundingTarget;
        [Tooltip("Whether ratings have a floor.")]
        [SerializeField] private bool hasMinRating;
        [Tooltip("The rating floor, when there is one: no rating falls below it.")]
        [SerializeField] private float minRating;
        [Tooltip("The rating a new player starts with.")]
        [SerializeField] private float initialRating = 1500f;
        [Tooltip("Leagues, lowest first: each with a name, the rating it starts at and optional K, L and V of its own.")]
        [SerializeField] private List<League> leagues = new List<League>();
        [Tooltip("Zero-sum pools keep the sum of all ratings at a fixed total.")]
        [SerializeField] private bool zeroSum;
        [Tooltip("The total a zero-sum pool keeps, when zero-sum is on.")]
        [SerializeField] private double zeroSumTotal;
        [Tooltip("A team's rating from its members' ratings (team matches).")]
        [SerializeField] private TeamRating teamRating;
        [Tooltip("How a team's rating change is shared among its members.")]
        [SerializeField] private TeamSplit teamSplit;
        [Tooltip("What a free-for-all's summed pair terms are divided by.")]
        [SerializeField] private PlacementNormalization placementNormalization;
        [Tooltip("Points below a league's start before a player is demoted (0: at once).")]
        [Min(0f)] [SerializeField] private double demotionMargin;
        [Tooltip("Games after a promotion during which a player cannot be demoted.")]
        [Min(0f)] [SerializeField] private int protectedGames;
        [Tooltip("How ratings move toward the anchor at a season's end (the share of the distance kept).")]
        [SerializeField] private SeasonReset seasonReset = new SeasonReset();
        [Tooltip("Rating decay for players who stop playing: grace days, then points per day.")]
        [SerializeField] private DecaySettings decay = new DecaySettings();

        /// <summary>Creates the default settings: logistic (c = 400), K = 32, initial rating 1500.</summary>
        public EloSettings()
        {
        }

        /// <summary>Expected-score model.</summary>
        public ExpectedScoreModel ExpectedScore
        {
            get { return expectedScore; }
            set { expectedScore = value; }
        }

        /// <summary>Cap on the rating difference fed to the model (FIDE: 400); null for none.</summary>
        public double? MaxRatingDifference
        {
            get { return capsRatingDifference ? maxRatingDifference : (double?)null; }
            set
            {
                capsRatingDifference = value.HasValue;
                maxRatingDifference = value.GetValueOrDefault(400);
            }
        }

        /// <summary>Players rated at least this count the whole difference, uncapped (FIDE since October 2025: 2650); null when the cap holds for everybody. Needs <see cref="MaxRatingDifference"/>.</summary>
        public float? MaxRatingDifferenceExemptFrom
        {
            get { return exemptsFromCap ? maxRatingDifferenceExemptFrom : (float?)null; }
            set
            {
                exemptsFromCap = value.HasValue;
                maxRatingDifferenceExemptFrom = value.GetValueOrDefault(2650f);
            }
        }

        /// <summary>How each player's K is chosen.</summary>
        public KPolicy KPolicy
        {
            get { return kPolicy; }
            set { kPolicy = value; }
        }

        /// <summary>Own K per player, or the average.</summary>
        public KCombine KCombine
        {
            get { return kCombine; }
            set { kCombine = value; }
        }

        /// <summary>Win-streak penalty alpha; 0 for none.</summary>
        public double StreakAlpha
        {
            get { return streakAlpha; }
            set { streakAlpha = value; }
        }

        /// <summary>Score of the K term for results given as points: the share (default) or the result.</summary>
        public PointsKTerm PointsKTerm
        {
            get { return pointsKTerm; }
            set { pointsKTerm = value; }
        }

        /// <summary>Score-share bonus L (points share times L).</summary>
        public double ScoreShareBonus
        {
            get { return scoreShareBonus; }
            set { scoreShareBonus = value; }
        }

        /// <summary>Victory bonus V, paid on the match result (1 a win, 0.5 a draw, 0 a defeat): ratings creep up by about V per match.</summary>
        public double VictoryBonus
        {
            get { return victoryBonus; }
            set { victoryBonus = value; }
        }

        /// <summary>Rounding of rating changes.</summary>
        public Rounding Rounding
        {
            get { return rounding; }
            set { rounding = value; }
        }

        /// <summary>What <see cref="Rounding"/> applies to: the change (default) or the new rating.</summary>
        public RoundingTarget RoundingTarget
        {
            get { return roundingTarget; }
            set { roundingTarget = value; }
        }

        /// <summary>Rating floor; null for none.</summary>
        public float? MinRating
        {
            get { return hasMinRating ? minRating : (float?)null; }
            set
            {
                hasMinRating = value.HasValue;
                minRating = value.GetValueOrDefault();
            }
        }

        /// <summary>Rating of a new player.</summary>
        public float InitialRating
        {
            get { return initialRating; }
            set { initialRating = value; }
        }

        /// <summary>Leagues, lowest first.</summary>
        public List<League> Leagues
        {
            get { return leagues ?? (leagues = new List<League>()); }
        }

        /// <summary>Zero-sum pools keep their rating total at this value; null for off.</summary>
        public double? ZeroSumTotal
        {
            get { return zeroSum ? zeroSumTotal : (double?)null; }
            set
            {
                zeroSum = value.HasValue;
                zeroSumTotal = value.GetValueOrDefault();
            }
        }

        /// <summary>A team's rating from its members' (team matches).</summary>
        public TeamRating TeamRating
        {
            get { return teamRating; }
            set { teamRating = value; }
        }

        /// <summary>How a team's change is shared among its members.</summary>
        public TeamSplit TeamSplit
        {
            get { return teamSplit; }
            set { teamSplit = value; }
        }

        /// <summary>What a free-for-all's summed pair terms are divided by.</summary>
        public PlacementNormalization PlacementNormalization
        {
            get { return placementNormalization; }
            set { placementNormalization = value; }
        }

        /// <summary>League hysteresis: a player is demoted only once the rating is more than this below the held league's bound (0: at the bound).</summary>
        public double DemotionMargin
        {
            get { return demotionMargin; }
            set { demotionMargin = value; }
        }

        /// <summary>Games after a promotion during which no demotion happens (0: none).</summary>
        public int ProtectedGames
        {
            get { return protectedGames; }
            set { protectedGames = value; }
        }

        /// <summary>The soft reset at a season's end (<see cref="RatingPool.EndSeason(string)"/>).</summary>
        public SeasonReset SeasonReset
        {
            get { return seasonReset ?? (seasonReset = new SeasonReset()); }
            set { seasonReset = value; }
        }

        /// <summary>Inactivity decay (<see cref="RatingPool.ApplyDecay(double)"/>); off while <see cref="DecaySettings.PointsPerDay"/> is 0.</summary>
        public DecaySettings Decay
        {
            get { return decay ?? (decay = new DecaySettings()); }
            set { decay = value; }
        }

        /// <summary>
        /// Checks the settings with the engine's own validation (the same the rules use).
        /// </summary>
        /// <returns>null when valid, else the engine's message naming the setting (for example
        /// <c>invalid configuration: victory_bonus: must be a finite number from 0 to 1e6</c>).</returns>
        public string Validate()
        {
            try
            {
                using (new EloRules(this))
                {
                    return null;
                }
            }
            catch (EloArgumentException error)
            {
                return error.Message;
            }
        }

        /// <summary>The settings as the engine's JSON configuration.</summary>
        /// <returns>The JSON text.</returns>
        public string ToJson()
        {
            var json = new Json().BeginObject();
            (ExpectedScore ?? ExpectedScoreModel.Logistic()).Write(json);
            json.Field("max_rating_difference", MaxRatingDifference);
            if (MaxRatingDifferenceExemptFrom.HasValue)
            {
                json.Field("max_rating_difference_exempt_from", MaxRatingDifferenceExemptFrom.Value);
            }
            (KPolicy ?? KPolicy.Constant()).Write(json);
            json.Field("k_combine", KCombine == KCombine.Average ? "average" : "per_player");
            json.Field("streak_alpha", StreakAlpha);
            json.Field("points_k_term", PointsKTerm == PointsKTerm.Result ? "result" : "share");
            json.Field("score_share_bonus", ScoreShareBonus);
            json.Field("victory_bonus", VictoryBonus);
            json.Field("rounding", Rounding == Rounding.Truncate ? "truncate" : Rounding == Rounding.HalfAwayFromZero ? "half_away_from_zero" : "none");
            if (RoundingTarget == RoundingTarget.Rating)
            {
                json.Field("rounding_target", "rating");
            }
            json.Field("min_rating", MinRating.HasValue ? (double?)MinRating.Value : null);
            json.Field("initial_rating", InitialRating);
            json.BeginArray("leagues");
            foreach (League league in Leagues)
            {
                json.BeginObject().Field("name", league.Name).Field("min_rating", league.MinRating).Field("k", league.K)
                    .Field("score_share_bonus", league.ScoreShareBonus).Field("victory_bonus", league.VictoryBonus)
                    .Field("season_keep", league.SeasonKeep).EndObject();
            }
            json.EndArray();
            json.Field("zero_sum_total", ZeroSumTotal);
            json.Field("team_rating", TeamRating == TeamRating.Sum ? "sum" : TeamRating == TeamRating.WeightedMean ? "weighted_mean" : "mean");
            json.Field("team_split", TeamSplit == TeamSplit.Weights ? "weights" : "equal");
            json.Field("placement_normalization", PlacementNormalization == PlacementNormalization.None ? "none" : "n_minus_one");
            json.Field("demotion_margin", DemotionMargin);
            json.Field("protected_games", (double)ProtectedGames);
            SeasonReset.Write(json);
            Decay.Write(json);
            return json.EndObject().ToString();
        }
    }
}
