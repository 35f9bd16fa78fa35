using System;
using System.Collections.Generic;

namespace RankingElo.Ladder
{
    /// <summary>
    /// A ladder as <see cref="LadderClient.ListLaddersAsync"/> lists it: its name, size, season,
    /// schedule and next scheduled times. <see cref="LadderInfo"/> (one ladder, from
    /// <see cref="LadderClient.GetLadderAsync"/>) adds its rules.
    /// </summary>
    public class LadderSummary
    {
        internal LadderSummary()
        {
        }

        /// <summary>The ladder's name.</summary>
        public string Name { get; private set; }

        /// <summary>Players who have joined (played at least once).</summary>
        public long Players { get; private set; }

        /// <summary>The <c>seq</c> of the ladder's newest journal entry, 0 when it has none.</summary>
        public long LastSeq { get; private set; }

        /// <summary>The current season's number (the first is 1; each season end adds one).</summary>
        public long Season { get; private set; }

        /// <summary>
        /// When the server ends seasons by itself: a five-field cron expression in UTC
        /// (<c>minute hour day-of-month month day-of-week</c>, e.g. <c>0 0 1 * *</c> for the first
        /// of every month at midnight), or null when seasons end only when an admin ends them.
        /// </summary>
        public string SeasonEndSchedule { get; private set; }

        /// <summary>When the server runs inactivity decay: a five-field cron expression in UTC, or null.</summary>
        public string DecaySchedule { get; private set; }

        /// <summary>
        /// When the scheduled season end comes next (UTC; for a countdown,
        /// <c>NextSeasonEnd.Value - DateTimeOffset.UtcNow</c>), or null without a schedule.
        /// </summary>
        public DateTimeOffset? NextSeasonEnd { get; private set; }

        /// <summary>When the scheduled decay runs next (UTC), or null without a schedule.</summary>
        public DateTimeOffset? NextDecay { get; private set; }

        /// <summary>When the server ends rating periods by itself (a ladder with rating periods: its held matches are rated then): a five-field cron expression in UTC, or null.</summary>
        public string PeriodEndSchedule { get; private set; }

        /// <summary>When the scheduled rating period ends next (UTC; "rated in 2 days"), or null without a schedule.</summary>
        public DateTimeOffset? NextPeriodEnd { get; private set; }

        internal void ReadSummary(Dictionary<string, object> o)
        {
            Name = LadderJson.String(o, "name");
            Players = LadderJson.Long(o, "players");
            LastSeq = LadderJson.Long(o, "last_seq");
            Season = LadderJson.Long(o, "season");
            var schedule = LadderJson.OptionalObject(o, "schedule");
            if (schedule != null)
            {
                SeasonEndSchedule = LadderJson.String(schedule, "season_end");
                DecaySchedule = LadderJson.String(schedule, "decay");
                PeriodEndSchedule = LadderJson.String(schedule, "period_end");
            }
            var next = LadderJson.OptionalObject(o, "next");
            if (next != null)
            {
                NextSeasonEnd = LadderJson.OptionalTime(next, "season_end");
                NextDecay = LadderJson.OptionalTime(next, "decay");
                NextPeriodEnd = LadderJson.OptionalTime(next, "period_end");
            }
        }

        internal static LadderSummary[] ReadAll(object json)
        {
            var ladders = new List<LadderSummary>();
            foreach (var item in LadderJson.Array(LadderJson.Object(json, "the ladders"), "ladders"))
            {
                var summary = new LadderSummary();
                summary.ReadSummary(LadderJson.Object(item, "a ladder"));
                ladders.Add(summary);
            }
            return ladders.ToArray();
        }
    }

    /// <summary>
    /// One ladder as <see cref="LadderClient.GetLadderAsync"/> reads it: its summary and the
    /// rules the server rates it with now, as the engine's canonical JSON, so that a preview
    /// computed here is the server's result bit for bit (<see cref="Preview"/>).
    /// </summary>
    /// <remarks>
    /// This object holds text only, no native handle: <see cref="CreateRules"/> makes a new
    /// <see cref="EloRules"/> each time, which the caller owns and disposes
    /// (<c>using (EloRules rules = ladder.CreateRules()) { … }</c>). The rules change only at
    /// a season end that brings in <see cref="NextRulesJson"/>: read the ladder again after
    /// one (when <see cref="LadderSummary.Season"/> has moved on).
    /// </remarks>
    public sealed class LadderInfo : LadderSummary
    {
        private double? zeroSumTotal;

        private LadderInfo()
        {
        }

        /// <summary>
        /// The rules of the current season: the engine's configuration JSON, every field
        /// written out, exactly as the server sent it. <see cref="EloRules.FromJson"/> of it
        /// (what <see cref="CreateRules"/> does) gives the server's rules exactly.
        /// </summary>
        public string RulesJson { get; private set; }

        /// <summary>The rules the next season end brings in (set by an admin), as JSON; null when the next season keeps <see cref="RulesJson"/>.</summary>
        public string NextRulesJson { get; private set; }

        /// <summary>The server's rules for this season, as a new <see cref="EloRules"/> that the caller owns: dispose it when done.</summary>
        /// <returns>New rules from <see cref="RulesJson"/>.</returns>
        /// <exception cref="EloArgumentException">The engine here does not accept the server's configuration (a package older than the server).</exception>
        public EloRules CreateRules()
        {
            return EloRules.FromJson(RulesJson);
        }

        /// <summary>The rules from the next season end on, as a new <see cref="EloRules"/> that the caller owns, or null when none are set.</summary>
        /// <returns>New rules from <see cref="NextRulesJson"/>, or null.</returns>
        /// <exception cref="EloArgumentException">The engine here does not accept the configuration.</exception>
        public EloRules CreateNextRules()
        {
            return NextRulesJson != null ? EloRules.FromJson(NextRulesJson) : null;
        }

        /// <summary>
        /// The state a player who has not played in this ladder yet starts their first match
        /// with (<see cref="LadderClient.GetPlayerAsync"/> gives null for such a player):
        /// the rules' <see cref="EloRules.NewPlayer"/>, which is exactly what the server gives.
        /// In a zero-sum ladder (rules with <c>zero_sum_total</c>) the server starts a newcomer
        /// at the ladder's mean rating and moves every rating to keep the total; this gives the
        /// mean as this description saw it (the total over <see cref="LadderSummary.Players"/>),
        /// which is close to the server's but not its bits.
        /// </summary>
        /// <returns>The new player's state.</returns>
        public PlayerState NewPlayerState()
        {
            using (var rules = CreateRules())
            {
                return NewPlayerState(rules);
            }
        }

        internal PlayerState NewPlayerState(EloRules rules)
        {
            if (zeroSumTotal.HasValue)
            {
                double total = zeroSumTotal.Value;
                return new PlayerState((float)(Players == 0 ? total : total / Players));
            }
            return rules.NewPlayer();
        }

        /// <summary>
        /// What the server will give a match of two players, computed here with this ladder's
        /// rules: the engine's <see cref="EloRules.RatePlayers(ref PlayerState, ref PlayerState, float)"/>
        /// on the players' states, with <paramref name="scoreA"/> rounded to the nearest
        /// <c>float</c> as the server rounds it. No request is sent: read the players with
        /// <see cref="LadderClient.GetPlayerAsync"/> (or use <see cref="LadderClient.PreviewAsync"/>,
        /// which reads everything in one call).
        /// </summary>
        /// <remarks>The result is the server's, bit for bit, under the conditions of <see cref="MatchPreview"/>.</remarks>
        /// <param name="playerA">Player A as read, or null for a player who has not played in this ladder yet (<see cref="NewPlayerState()"/>).</param>
        /// <param name="playerB">Player B as read, or null for a newcomer.</param>
        /// <param name="scoreA">A's score: 1 win, 0.5 draw, 0 loss, or any value between.</param>
        /// <returns>The states before and after.</returns>
        /// <exception cref="ArgumentOutOfRangeException"><paramref name="scoreA"/> is not from 0 to 1.</exception>
        /// <exception cref="ArgumentException">Both are the same player (the server refuses a player twice).</exception>
        public MatchPreview Preview(LadderPlayer playerA, LadderPlayer playerB, double scoreA)
        {
            if (playerA != null && playerB != null && playerA.Player == playerB.Player)
            {
                throw new ArgumentException("a player cannot play against themself: " + playerA.Player, "playerB");
            }
            return MatchPreview.Compute(this, playerA, playerB, scoreA);
        }

        internal static LadderInfo Read(string text)
        {
            var o = LadderJson.Object(LadderJson.Parse(text), "a ladder");
            var info = new LadderInfo();
            info.ReadSummary(o);
            info.RulesJson = LadderJson.RawMember(text, "rules");
            if (info.RulesJson == null)
            {
                throw new FormatException("the ladder has no \"rules\"");
            }
            info.NextRulesJson = LadderJson.RawMember(text, "next_rules");
            info.zeroSumTotal = LadderJson.OptionalDouble(LadderJson.Object(o["rules"], "\"rules\""), "zero_sum_total");
            return info;
        }
    }

    /// <summary>
    /// A match computed on the client with the ladder's rules before it is played ("+12 if you
    /// win"): both players' states before, and after the result that
    /// <see cref="ScoreA"/> would give (<see cref="LadderClient.PreviewAsync"/>,
    /// <see cref="LadderInfo.Preview"/>).
    /// </summary>
    /// <remarks>
    /// <para><b>When it is the server's result.</b> The server rates with the same engine on the
    /// states it stores, so the preview equals, bit for bit, what
    /// <see cref="LadderClient.ReportMatchAsync(string, string, string, string, double, TimeSpan?, System.Threading.CancellationToken)"/>
    /// returns for the same pair and score, provided nothing changes either player or the
    /// rules between the reads and the report: no other match of either player lands in between
    /// (nor a season end, a decay, or an admin's annulment or correction of one of their
    /// matches). Another player's match does not matter. A newcomer's state is the rules'
    /// new-player state, also exact, except in a zero-sum ladder, where a newcomer's joining
    /// moves every rating and the preview with a newcomer is close but not exact
    /// (<see cref="LadderInfo.NewPlayerState()"/>).</para>
    /// <para>The after-states' <see cref="PlayerState.LastPlayed"/> is the read state's; the
    /// server stamps its own time. A preview holds no native handle; nothing to dispose.</para>
    /// </remarks>
    public sealed class MatchPreview
    {
        private MatchPreview()
        {
        }

        /// <summary>The ladder as read: its rules rated this preview.</summary>
        public LadderInfo Ladder { get; private set; }

        /// <summary>Player A as read, or null for a player who has not played in the ladder yet.</summary>
        public LadderPlayer PlayerA { get; private set; }

        /// <summary>Player B as read, or null for a newcomer.</summary>
        public LadderPlayer PlayerB { get; private set; }

        /// <summary>A's score as the engine rates it: the nearest <c>float</c> to the score asked for, as the server rounds it.</summary>
        public float ScoreA { get; private set; }

        /// <summary>A's state before the match: as read, or the ladder's new-player state.</summary>
        public PlayerState BeforeA { get; private set; }

        /// <summary>B's state before the match.</summary>
        public PlayerState BeforeB { get; private set; }

        /// <summary>A's state after the match: the engine's result.</summary>
        public PlayerState AfterA { get; private set; }

        /// <summary>B's state after the match.</summary>
        public PlayerState AfterB { get; private set; }

        /// <summary>A's rating change (<c>AfterA.Rating - BeforeA.Rating</c>): "+12 if you win".</summary>
        public float ChangeA
        {
            get { return AfterA.Rating - BeforeA.Rating; }
        }

        /// <summary>B's rating change (<c>AfterB.Rating - BeforeB.Rating</c>).</summary>
        public float ChangeB
        {
            get { return AfterB.Rating - BeforeB.Rating; }
        }

        /// <summary>
        /// The same players and rules with another result, without reading again: one
        /// <see cref="LadderClient.PreviewAsync"/> then <c>WithScore(0)</c> and <c>WithScore(0.5)</c>
        /// give "+12 if you win, -4 for a draw, -20 if you lose".
        /// </summary>
        /// <param name="scoreA">A's score: 1 win, 0.5 draw, 0 loss, or any value between.</param>
        /// <returns>The preview of that result.</returns>
        /// <exception cref="ArgumentOutOfRangeException"><paramref name="scoreA"/> is not from 0 to 1.</exception>
        public MatchPreview WithScore(double scoreA)
        {
            return Compute(Ladder, PlayerA, PlayerB, scoreA);
        }

        /// <summary>The score the server rates: the reported number rounded once to the nearest <c>float</c> (its <c>engine_score</c>).</summary>
        internal static float EngineScore(double scoreA)
        {
            if (!(scoreA >= 0.0 && scoreA <= 1.0))
            {
                throw new ArgumentOutOfRangeException("scoreA", scoreA, "a score is from 0 (a loss) to 1 (a win)");
            }
            return (float)scoreA + 0f;
        }

        internal static MatchPreview Compute(LadderInfo ladder, LadderPlayer playerA, LadderPlayer playerB, double scoreA)
        {
            float score = EngineScore(scoreA);
            using (var rules = ladder.CreateRules())
            {
                PlayerState beforeA = playerA != null ? playerA.State : ladder.NewPlayerState(rules);
                PlayerState beforeB = playerB != null ? playerB.State : ladder.NewPlayerState(rules);
                PlayerState afterA = beforeA, afterB = beforeB;
                rules.RatePlayers(ref afterA, ref afterB, score);
                return new MatchPreview
                {
                    Ladder = ladder,
                    PlayerA = playerA,
                    PlayerB = playerB,
                    ScoreA = score,
                    BeforeA = beforeA,
                    BeforeB = beforeB,
                    AfterA = afterA,
                    AfterB = afterB,
                };
            }
        }
    }
}
