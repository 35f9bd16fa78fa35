using System;
using System.Text;
using RankingElo.Native;

namespace RankingElo
{
    /// <summary>
    /// Seasons: the pool's clock, promotion and demotion events, the season's end with its
    /// records and soft reset, inactivity decay, and rating periods. Event arrays follow one rule: the
    /// return value says how many events happened; when that is more than the span holds,
    /// only the first ones were written (a span of twice the matches for pairs, or of the
    /// player count for decay and season ends, never loses one).
    /// </summary>
    public sealed partial class RatingPool
    {
        /// <summary>
        /// Rates the matches of one rating period at once, atomically, as FIDE and USCF do:
        /// every match is scored against the ratings the players hold before the call (the
        /// period's opening ratings), each player's change is summed over the player's matches
        /// and rounded once, and K is each player's at the start of the period (with FIDE's
        /// <c>K x n &lt;= 700</c> when the <c>fide</c> policy's <c>period_rule</c> is on). A bad
        /// match anywhere changes nothing. The optional arrays receive, per match, each game's
        /// share of the players' changes before rounding, and A's expected score.
        /// </summary>
        /// <example>
        /// <code>
        /// // One tournament, reported when it ends: player 0 beat 1, drew 2, lost to 3.
        /// pool.RatePeriod(new[] { 0, 0, 0 }, new[] { 1, 2, 3 }, new[] { 1f, 0.5f, 0f });
        /// </code>
        /// </example>
        /// <param name="playerA">Indices of the A players.</param>
        /// <param name="playerB">Indices of the B players.</param>
        /// <param name="scoreA">A's scores in [0, 1].</param>
        /// <param name="deltaA">Optional: receives each game's share of A's change, before rounding.</param>
        /// <param name="deltaB">Optional: receives each game's share of B's change, before rounding.</param>
        /// <param name="expectedA">Optional: receives A's expected scores.</param>
        /// <exception cref="EloArgumentException">Arrays of different lengths, or a bad match (the message gives its position).</exception>
        public void RatePeriod(int[] playerA, int[] playerB, float[] scoreA, float[] deltaA = null, float[] deltaB = null, float[] expectedA = null)
        {
            RateScores(playerA, playerB, scoreA, deltaA, deltaB, expectedA, true);
        }

        /// <summary>
        /// The pool's clock in seconds (any finite value; for example Unix time from your
        /// server, or a game's own day counter times 86400). Every match applied afterwards
        /// stamps it on its players as <see cref="PlayerState.LastPlayed"/>, which
        /// <see cref="ApplyDecay(double)"/> reads. The engine never reads the wall clock.
        /// </summary>
        /// <exception cref="EloArgumentException">A NaN or infinite time.</exception>
        public unsafe double Clock
        {
            get
            {
                double seconds;
                using (var lease = Lease())
                {
                    ThrowHelper.Check(NativeMethods.elo_pool_get_clock(Pool(lease), &seconds));
                }
                return seconds;
            }
            set
            {
                using (var lease = Lease())
                {
                    ThrowHelper.Check(NativeMethods.elo_pool_set_clock(Pool(lease), value));
                }
            }
        }

        /// <summary>
        /// Replaces the pool's rules by a copy of <paramref name="rules"/>, for example for the
        /// next season (new leagues, K, reset share), keeping every player's rating, record and
        /// history. When the leagues differ, every player is placed afresh in the league of the
        /// rating; a zero-sum pool takes the new total by an equal shift.
        /// </summary>
        /// <param name="rules">The new rules (may be disposed afterwards).</param>
        public unsafe void SetRules(EloRules rules)
        {
            if (rules == null) throw new ArgumentNullException("rules");
            using (var lease = Lease())
            using (var rulesLease = rules.Lease())
            {
                ThrowHelper.Check(NativeMethods.elo_pool_set_config(Pool(lease), EloRules.Config(rulesLease)));
            }
        }

        /// <summary>
        /// Applies matches (as <see cref="Apply(ReadOnlySpan{int}, ReadOnlySpan{int}, ReadOnlySpan{float})"/>)
        /// and reports the promotions and demotions they caused, in match order. Allocates nothing.
        /// </summary>
        /// <param name="playerA">Indices of the A players.</param>
        /// <param name="playerB">Indices of the B players.</param>
        /// <param name="scoreA">A's scores in [0, 1].</param>
        /// <param name="events">Receives the league changes (at most two per match).</param>
        /// <returns>How many league changes happened (more than <paramref name="events"/> holds means some were not written).</returns>
        public unsafe int Apply(ReadOnlySpan<int> playerA, ReadOnlySpan<int> playerB, ReadOnlySpan<float> scoreA, Span<LeagueChange> events)
        {
            int count = playerA.Length;
            Arrays.RequireSpanLength(playerB.Length, "playerB", count);
            Arrays.RequireSpanLength(scoreA.Length, "scoreA", count);
            int happened = 0;
            using (var lease = Lease())
            fixed (int* a = &playerA.GetPinnableReference(), b = &playerB.GetPinnableReference())
            fixed (float* s = &scoreA.GetPinnableReference())
            fixed (LeagueChange* e = &events.GetPinnableReference())
            {
                ThrowHelper.Check(NativeMethods.elo_pool_apply_events(Pool(lease), a, b, s, count, (EloLeagueChange*)e, events.Length, &happened));
            }
            return happened;
        }

        /// <summary>Applies matches and returns the league changes they caused (allocates the array; see the span overload).</summary>
        /// <param name="playerA">Indices of the A players.</param>
        /// <param name="playerB">Indices of the B players.</param>
        /// <param name="scoreA">A's scores in [0, 1].</param>
        /// <returns>The promotions and demotions, in match order.</returns>
        public LeagueChange[] ApplyWithEvents(int[] playerA, int[] playerB, float[] scoreA)
        {
            if (playerA == null) throw new ArgumentNullException("playerA");
            var events = new LeagueChange[2 * playerA.Length];
            int happened = Apply(playerA, playerB, scoreA, events);
            return Trim(events, happened);
        }

        /// <summary>
        /// Ends the season: fills <paramref name="records"/> with every player's record
        /// (before the reset), optionally writes them as JSON to <paramref name="jsonPath"/>
        /// first (if that fails nothing is reset), then soft-resets every rating toward the
        /// anchor (<see cref="EloSettings.SeasonReset"/>), places everybody in the league of
        /// the new rating and starts new season records. A zero-sum pool keeps its total.
        /// Allocates nothing but the path's bytes.
        /// </summary>
        /// <param name="records">Empty, or one slot per player (<see cref="Count"/>).</param>
        /// <param name="events">Receives the league changes of the reset (at most one per player).</param>
        /// <param name="jsonPath">A file for the records as JSON, or null.</param>
        /// <returns>How many league changes happened.</returns>
        /// <exception cref="EloIOException">The JSON file could not be written (nothing was reset).</exception>
        public unsafe int EndSeason(Span<SeasonRecord> records, Span<LeagueChange> events, string jsonPath = null)
        {
            byte[] path = jsonPath == null ? null : PathBytes(jsonPath);
            int happened = 0;
            using (var lease = Lease())
            fixed (SeasonRecord* r = &records.GetPinnableReference())
            fixed (LeagueChange* e = &events.GetPinnableReference())
            fixed (byte* p = path)
            {
                ThrowHelper.Check(NativeMethods.elo_pool_end_season(Pool(lease), records.Length == 0 ? null : (EloSeasonRecord*)r, records.Length,
                    p, path == null ? 0 : path.Length, (EloLeagueChange*)e, events.Length, &happened));
            }
            return happened;
        }

        /// <summary>Ends the season (see the span overload) and returns every player's record, for example to hand out rewards by <see cref="SeasonRecord.League"/>.</summary>
        /// <param name="jsonPath">A file for the records as JSON, or null.</param>
        /// <returns>One record per player, by index.</returns>
        /// <exception cref="EloIOException">The JSON file could not be written (nothing was reset).</exception>
        public SeasonRecord[] EndSeason(string jsonPath = null)
        {
            var records = new SeasonRecord[Count];
            EndSeason(records, Span<LeagueChange>.Empty, jsonPath);
            return records;
        }

        /// <summary>
        /// Applies inactivity decay up to time <paramref name="now"/> (the clock's seconds;
        /// never earlier than a previous call's): players inactive longer than the grace
        /// period lose <see cref="DecaySettings.PointsPerDay"/> per further day toward the
        /// anchor (see <see cref="EloSettings.Decay"/>). Days already decayed by an earlier
        /// call are not counted again, so calling it daily or weekly gives the same ratings.
        /// O(N). Allocates nothing.
        /// </summary>
        /// <param name="now">The current time in seconds.</param>
        /// <param name="events">Receives the demotions decay caused (at most one per player).</param>
        /// <param name="eventCount">How many league changes happened.</param>
        /// <returns>How many players' ratings moved.</returns>
        /// <exception cref="EloArgumentException"><paramref name="now"/> is NaN, infinite or earlier than the previous decay.</exception>
        public unsafe int ApplyDecay(double now, Span<LeagueChange> events, out int eventCount)
        {
            int happened = 0, decayed = 0;
            using (var lease = Lease())
            fixed (LeagueChange* e = &events.GetPinnableReference())
            {
                ThrowHelper.Check(NativeMethods.elo_pool_apply_decay(Pool(lease), now, (EloLeagueChange*)e, events.Length, &happened, &decayed));
            }
            eventCount = happened;
            return decayed;
        }

        /// <summary>Applies inactivity decay up to <paramref name="now"/> (see the span overload).</summary>
        /// <param name="now">The current time in seconds.</param>
        /// <returns>How many players' ratings moved.</returns>
        public int ApplyDecay(double now)
        {
            int ignored;
            return ApplyDecay(now, Span<LeagueChange>.Empty, out ignored);
        }

        /// <summary>Applies inactivity decay and returns the league changes it caused (allocates the array).</summary>
        /// <param name="now">The current time in seconds.</param>
        /// <param name="events">Receives the league changes.</param>
        /// <returns>How many players' ratings moved.</returns>
        public int ApplyDecay(double now, out LeagueChange[] events)
        {
            var buffer = new LeagueChange[Count];
            int happened;
            int decayed = ApplyDecay(now, buffer, out happened);
            events = Trim(buffer, happened);
            return decayed;
        }

        private static LeagueChange[] Trim(LeagueChange[] events, int count)
        {
            if (count >= events.Length) return events;
            var trimmed = new LeagueChange[count];
            Array.Copy(events, trimmed, count);
            return trimmed;
        }
    }
}
