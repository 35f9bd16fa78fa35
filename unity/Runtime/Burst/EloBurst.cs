using System;
using System.Runtime.InteropServices;
#if UNITY_5_3_OR_NEWER
using Unity.Collections.LowLevel.Unsafe;
#endif

namespace RankingElo.Burst
{
    /// <summary>
    /// Rules (an immutable native configuration) as an unmanaged value that a Burst job can
    /// hold in a field. Get it from <see cref="EloRules.BurstHandle"/>; it stays valid until
    /// that <see cref="EloRules"/> is disposed, so keep the rules alive (and undisposed) while
    /// jobs use the handle. Rules are immutable: any number of jobs may use one at once.
    /// </summary>
    /// <remarks>
    /// With Unity's collection checks (the Editor) the handle carries the rules' safety handle:
    /// disposing the rules while a scheduled job holds it throws Unity's safety exception, and
    /// using it after the rules were disposed throws <see cref="ObjectDisposedException"/>
    /// instead of reading freed memory. Jobs may hold it as read-only, any number at once.
    /// </remarks>
#if UNITY_5_3_OR_NEWER
    [NativeContainer]
    [NativeContainerIsReadOnly]
#endif
    public readonly struct EloRulesHandle
    {
        /// <summary>The native <c>EloConfig*</c>.</summary>
        public readonly IntPtr Config;
#if ENABLE_UNITY_COLLECTIONS_CHECKS
        // The job system finds a container's safety handle by this name.
        internal readonly AtomicSafetyHandle m_Safety;
        internal readonly byte m_Checked;
#endif

        /// <summary>Wraps a native configuration pointer (a handle made so carries no safety handle: prefer <see cref="EloRules.BurstHandle"/>).</summary>
        /// <param name="config">The <c>EloConfig*</c>.</param>
        public EloRulesHandle(IntPtr config)
        {
            Config = config;
#if ENABLE_UNITY_COLLECTIONS_CHECKS
            m_Safety = default(AtomicSafetyHandle);
            m_Checked = 0;
#endif
        }

        internal EloRulesHandle(IntPtr config, BurstSafety safety)
        {
            Config = config;
#if ENABLE_UNITY_COLLECTIONS_CHECKS
            m_Safety = safety.Handle;
            m_Checked = 1;
#endif
        }

        /// <summary>Throws when the rules were disposed (with Unity's collection checks only).</summary>
        [System.Diagnostics.Conditional("ENABLE_UNITY_COLLECTIONS_CHECKS")]
        internal void CheckAlive()
        {
#if ENABLE_UNITY_COLLECTIONS_CHECKS
            if (m_Checked != 0) AtomicSafetyHandle.CheckReadAndThrow(m_Safety);
#endif
        }

        /// <summary>Whether the handle points to rules (it is not the default value).</summary>
        public bool IsCreated
        {
            get { return Config != IntPtr.Zero; }
        }
    }

    /// <summary>
    /// A player pool as an unmanaged value for Burst jobs. Get it from
    /// <see cref="RatingPool.BurstHandle"/>; it stays valid until that pool is disposed. Each
    /// call locks the pool, so jobs and the main thread may use one pool at once (calls are
    /// serialized, each atomic).
    /// </summary>
    /// <remarks>
    /// With Unity's collection checks (the Editor) the handle carries the pool's safety handle:
    /// disposing the pool while a scheduled job holds it throws Unity's safety exception, and
    /// using it after the pool was disposed throws <see cref="ObjectDisposedException"/>
    /// instead of reading freed memory. The job system sees it as read-only because the pool
    /// serializes its calls itself: any number of jobs may hold one at once.
    /// </remarks>
#if UNITY_5_3_OR_NEWER
    [NativeContainer]
    [NativeContainerIsReadOnly]
#endif
    public readonly struct EloPoolHandle
    {
        /// <summary>The native <c>EloPool*</c>.</summary>
        public readonly IntPtr Pool;
#if ENABLE_UNITY_COLLECTIONS_CHECKS
        // The job system finds a container's safety handle by this name.
        internal readonly AtomicSafetyHandle m_Safety;
        internal readonly byte m_Checked;
#endif

        /// <summary>Wraps a native pool pointer (a handle made so carries no safety handle: prefer <see cref="RatingPool.BurstHandle"/>).</summary>
        /// <param name="pool">The <c>EloPool*</c>.</param>
        public EloPoolHandle(IntPtr pool)
        {
            Pool = pool;
#if ENABLE_UNITY_COLLECTIONS_CHECKS
            m_Safety = default(AtomicSafetyHandle);
            m_Checked = 0;
#endif
        }

        internal EloPoolHandle(IntPtr pool, BurstSafety safety)
        {
            Pool = pool;
#if ENABLE_UNITY_COLLECTIONS_CHECKS
            m_Safety = safety.Handle;
            m_Checked = 1;
#endif
        }

        /// <summary>Throws when the pool was disposed (with Unity's collection checks only).</summary>
        [System.Diagnostics.Conditional("ENABLE_UNITY_COLLECTIONS_CHECKS")]
        internal void CheckAlive()
        {
#if ENABLE_UNITY_COLLECTIONS_CHECKS
            if (m_Checked != 0) AtomicSafetyHandle.CheckReadAndThrow(m_Safety);
#endif
        }

        /// <summary>Whether the handle points to a pool (it is not the default value).</summary>
        public bool IsCreated
        {
            get { return Pool != IntPtr.Zero; }
        }
    }

    /// <summary>
    /// The engine's entry points in the form Unity's Burst compiler can call from jobs: public
    /// <c>DllImport</c> declarations taking only primitives, pointers and the unmanaged handle
    /// structs, returning the engine's result code (0 for success; the values of
    /// <see cref="EloError"/>) instead of throwing. They are the same native functions the
    /// managed API calls, so results are the same bits. Pointers must be valid for
    /// <c>count</c> elements; outputs are written only on success. Read the message of a
    /// failure on the managed side with <see cref="EloBurst.LastErrorMessage"/> (per thread).
    /// </summary>
    public static unsafe class EloBurst
    {
#if (UNITY_IOS || UNITY_WEBGL) && !UNITY_EDITOR
        private const string Library = "__Internal";
#else
        private const string Library = "ranking_elo";
#endif

        /// <summary>The result code of success.</summary>
        public const uint Ok = 0;

        /// <summary>
        /// Rates <paramref name="count"/> independent matches (<c>elo_rate_batch</c>): A's new
        /// ratings to <paramref name="outRatingA"/>, B's to <paramref name="outRatingB"/>
        /// (which may be exactly the input arrays, in place). <paramref name="k"/> is NULL for
        /// the configured K policy, or one K per match.
        /// </summary>
        /// <param name="rules">The rules.</param>
        /// <param name="ratingA">A's ratings.</param>
        /// <param name="ratingB">B's ratings.</param>
        /// <param name="scoreA">A's scores in [0, 1].</param>
        /// <param name="k">NULL, or a K per match.</param>
        /// <param name="count">Number of matches.</param>
        /// <param name="outRatingA">Receives A's new ratings.</param>
        /// <param name="outRatingB">Receives B's new ratings.</param>
        /// <returns>The result code; 0 on success.</returns>
        public static uint RateBatch(EloRulesHandle rules, float* ratingA, float* ratingB, float* scoreA, float* k, int count, float* outRatingA, float* outRatingB)
        {
            rules.CheckAlive();
            return elo_rate_batch(rules.Config, ratingA, ratingB, scoreA, k, count, outRatingA, outRatingB);
        }

        /// <summary>A's expected score against B (<c>elo_expected_score</c>).</summary>
        /// <param name="rules">The rules.</param>
        /// <param name="ratingA">A's rating.</param>
        /// <param name="ratingB">B's rating.</param>
        /// <param name="expectedA">Receives A's expected score.</param>
        /// <returns>The result code; 0 on success.</returns>
        public static uint ExpectedScore(EloRulesHandle rules, float ratingA, float ratingB, float* expectedA)
        {
            rules.CheckAlive();
            return elo_expected_score(rules.Config, ratingA, ratingB, expectedA);
        }

        /// <summary>Rates one match between players with state, updating both in place (<c>elo_rate_players</c>).</summary>
        /// <param name="rules">The rules.</param>
        /// <param name="playerA">Player A's state.</param>
        /// <param name="playerB">Player B's state (not the same as A).</param>
        /// <param name="scoreA">A's score in [0, 1].</param>
        /// <returns>The result code; 0 on success.</returns>
        public static uint RatePlayers(EloRulesHandle rules, PlayerState* playerA, PlayerState* playerB, float scoreA)
        {
            rules.CheckAlive();
            return elo_rate_players(rules.Config, playerA, playerB, scoreA);
        }

        /// <summary>
        /// Applies <paramref name="count"/> matches to a pool in order, atomically
        /// (<c>elo_pool_apply</c>); the three outputs are optional (NULL).
        /// </summary>
        /// <param name="pool">The pool.</param>
        /// <param name="playerA">Indices of the A players.</param>
        /// <param name="playerB">Indices of the B players.</param>
        /// <param name="scoreA">A's scores in [0, 1].</param>
        /// <param name="count">Number of matches.</param>
        /// <param name="outDeltaA">NULL, or receives A's rating changes.</param>
        /// <param name="outDeltaB">NULL, or receives B's rating changes.</param>
        /// <param name="outExpectedA">NULL, or receives A's expected scores.</param>
        /// <returns>The result code; 0 on success.</returns>
        public static uint PoolApply(EloPoolHandle pool, int* playerA, int* playerB, float* scoreA, int count, float* outDeltaA, float* outDeltaB, float* outExpectedA)
        {
            pool.CheckAlive();
            return elo_pool_apply(pool.Pool, playerA, playerB, scoreA, count, outDeltaA, outDeltaB, outExpectedA);
        }

        /// <summary>Copies the ratings of players <c>start .. start + count</c> (<c>elo_pool_get_ratings</c>).</summary>
        /// <param name="pool">The pool.</param>
        /// <param name="start">Index of the first player.</param>
        /// <param name="count">Number of players.</param>
        /// <param name="outRatings">Receives the ratings.</param>
        /// <returns>The result code; 0 on success.</returns>
        public static uint PoolGetRatings(EloPoolHandle pool, int start, int count, float* outRatings)
        {
            pool.CheckAlive();
            return elo_pool_get_ratings(pool.Pool, start, count, outRatings);
        }

        /// <summary>Copies the league indices of players <c>start .. start + count</c> (<c>elo_pool_get_leagues</c>).</summary>
        /// <param name="pool">The pool.</param>
        /// <param name="start">Index of the first player.</param>
        /// <param name="count">Number of players.</param>
        /// <param name="outLeagues">Receives the league indices (0 = lowest).</param>
        /// <returns>The result code; 0 on success.</returns>
        public static uint PoolGetLeagues(EloPoolHandle pool, int start, int count, int* outLeagues)
        {
            pool.CheckAlive();
            return elo_pool_get_leagues(pool.Pool, start, count, outLeagues);
        }

        /// <summary>Rates one team match in place (<c>elo_rate_teams</c>): team A's <paramref name="countA"/> members, then team B's.</summary>
        /// <param name="rules">The rules.</param>
        /// <param name="members">Team A's states, then team B's.</param>
        /// <param name="countA">Size of team A.</param>
        /// <param name="countB">Size of team B.</param>
        /// <param name="weights">NULL, or one weight per member.</param>
        /// <param name="scoreA">Team A's score in [0, 1].</param>
        /// <returns>The result code; 0 on success.</returns>
        public static uint RateTeams(EloRulesHandle rules, PlayerState* members, int countA, int countB, float* weights, float scoreA)
        {
            rules.CheckAlive();
            return elo_rate_teams(rules.Config, members, countA, countB, weights, scoreA);
        }

        /// <summary>Rates one free-for-all in place (<c>elo_rate_placements</c>).</summary>
        /// <param name="rules">The rules.</param>
        /// <param name="players">The entrants' states.</param>
        /// <param name="count">Number of entrants (2 to 256).</param>
        /// <param name="places">One place per entrant, 1 to <paramref name="count"/>.</param>
        /// <returns>The result code; 0 on success.</returns>
        public static uint RatePlacements(EloRulesHandle rules, PlayerState* players, int count, int* places)
        {
            rules.CheckAlive();
            return elo_rate_placements(rules.Config, players, count, places);
        }

        /// <summary>Applies team matches to a pool in order, atomically (<c>elo_pool_apply_teams</c>).</summary>
        /// <param name="pool">The pool.</param>
        /// <param name="members">Player indices, one run per team.</param>
        /// <param name="teamOffsets"><c>2 * matchCount + 1</c> offsets into <paramref name="members"/>.</param>
        /// <param name="matchCount">Number of matches.</param>
        /// <param name="weights">NULL, or one weight per member entry.</param>
        /// <param name="scoreA">Team A's score per match.</param>
        /// <returns>The result code; 0 on success.</returns>
        public static uint PoolApplyTeams(EloPoolHandle pool, int* members, int* teamOffsets, int matchCount, float* weights, float* scoreA)
        {
            pool.CheckAlive();
            return elo_pool_apply_teams(pool.Pool, members, teamOffsets, matchCount, weights, scoreA);
        }

        /// <summary>Applies free-for-alls to a pool in order, atomically (<c>elo_pool_apply_placements</c>).</summary>
        /// <param name="pool">The pool.</param>
        /// <param name="entrants">Player indices, one run per match.</param>
        /// <param name="offsets"><c>matchCount + 1</c> offsets into <paramref name="entrants"/>.</param>
        /// <param name="matchCount">Number of matches.</param>
        /// <param name="places">One place per entrant entry.</param>
        /// <returns>The result code; 0 on success.</returns>
        public static uint PoolApplyPlacements(EloPoolHandle pool, int* entrants, int* offsets, int matchCount, int* places)
        {
            pool.CheckAlive();
            return elo_pool_apply_placements(pool.Pool, entrants, offsets, matchCount, places);
        }

        /// <summary>Sets the pool's clock in seconds, stamped on the following matches (<c>elo_pool_set_clock</c>).</summary>
        /// <param name="pool">The pool.</param>
        /// <param name="seconds">The time (finite).</param>
        /// <returns>The result code; 0 on success.</returns>
        public static uint PoolSetClock(EloPoolHandle pool, double seconds)
        {
            pool.CheckAlive();
            return elo_pool_set_clock(pool.Pool, seconds);
        }

        /// <summary>Applies matches and reports promotions and demotions (<c>elo_pool_apply_events</c>).</summary>
        /// <param name="pool">The pool.</param>
        /// <param name="playerA">Indices of the A players.</param>
        /// <param name="playerB">Indices of the B players.</param>
        /// <param name="scoreA">A's scores in [0, 1].</param>
        /// <param name="count">Number of matches.</param>
        /// <param name="events">Receives the league changes (at most two per match).</param>
        /// <param name="eventsCapacity">Elements <paramref name="events"/> holds.</param>
        /// <param name="eventCount">Receives how many changes happened.</param>
        /// <returns>The result code; 0 on success.</returns>
        public static uint PoolApplyEvents(EloPoolHandle pool, int* playerA, int* playerB, float* scoreA, int count, LeagueChange* events, int eventsCapacity, int* eventCount)
        {
            pool.CheckAlive();
            return elo_pool_apply_events(pool.Pool, playerA, playerB, scoreA, count, events, eventsCapacity, eventCount);
        }

        /// <summary>Applies inactivity decay up to <paramref name="now"/> (<c>elo_pool_apply_decay</c>).</summary>
        /// <param name="pool">The pool.</param>
        /// <param name="now">The time in seconds (not earlier than the previous decay's).</param>
        /// <param name="events">Receives the demotions, or NULL.</param>
        /// <param name="eventsCapacity">Elements <paramref name="events"/> holds.</param>
        /// <param name="eventCount">Receives how many changes happened, or NULL.</param>
        /// <param name="decayed">Receives how many ratings moved, or NULL.</param>
        /// <returns>The result code; 0 on success.</returns>
        public static uint PoolApplyDecay(EloPoolHandle pool, double now, LeagueChange* events, int eventsCapacity, int* eventCount, int* decayed)
        {
            pool.CheckAlive();
            return elo_pool_apply_decay(pool.Pool, now, events, eventsCapacity, eventCount, decayed);
        }

        /// <summary>The message of the last failure on the calling thread (managed code only: it allocates a string).</summary>
        /// <returns>The engine's message.</returns>
        public static string LastErrorMessage()
        {
            return Native.ThrowHelper.LastErrorMessage();
        }

        // The declarations below mirror the generated ones (Native/NativeMethods.g.cs) with the
        // handles as IntPtr, the result as uint and pointers to structs (PlayerState,
        // LeagueChange) as void*: Burst's DllImport rules allow pointers to primitives only
        // (plus IntPtr and single-field handle structs), so the typed wrappers above cast.
        // tests/unity_package.rs checks that they agree, so they cannot drift from the Rust
        // signatures, and that no declaration takes anything Burst refuses.

        /// <summary><c>elo_rate_batch</c>, as declared in the C header.</summary>
        [DllImport(Library, EntryPoint = "elo_rate_batch", CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern uint elo_rate_batch(IntPtr config, float* rating_a, float* rating_b, float* score_a, float* k, int count, float* out_rating_a, float* out_rating_b);

        /// <summary><c>elo_expected_score</c>, as declared in the C header.</summary>
        [DllImport(Library, EntryPoint = "elo_expected_score", CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern uint elo_expected_score(IntPtr config, float rating_a, float rating_b, float* out_expected_a);

        /// <summary><c>elo_rate_players</c>, as declared in the C header.</summary>
        [DllImport(Library, EntryPoint = "elo_rate_players", CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern uint elo_rate_players(IntPtr config, void* player_a, void* player_b, float score_a);

        /// <summary><c>elo_pool_apply</c>, as declared in the C header.</summary>
        [DllImport(Library, EntryPoint = "elo_pool_apply", CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern uint elo_pool_apply(IntPtr pool, int* player_a, int* player_b, float* score_a, int count, float* out_delta_a, float* out_delta_b, float* out_expected_a);

        /// <summary><c>elo_pool_get_ratings</c>, as declared in the C header.</summary>
        [DllImport(Library, EntryPoint = "elo_pool_get_ratings", CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern uint elo_pool_get_ratings(IntPtr pool, int start, int count, float* out_ratings);

        /// <summary><c>elo_rate_teams</c>, as declared in the C header.</summary>
        [DllImport(Library, EntryPoint = "elo_rate_teams", CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern uint elo_rate_teams(IntPtr config, void* members, int count_a, int count_b, float* weights, float score_a);

        /// <summary><c>elo_rate_placements</c>, as declared in the C header.</summary>
        [DllImport(Library, EntryPoint = "elo_rate_placements", CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern uint elo_rate_placements(IntPtr config, void* players, int count, int* places);

        /// <summary><c>elo_pool_apply_teams</c>, as declared in the C header.</summary>
        [DllImport(Library, EntryPoint = "elo_pool_apply_teams", CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern uint elo_pool_apply_teams(IntPtr pool, int* members, int* team_offsets, int match_count, float* weights, float* score_a);

        /// <summary><c>elo_pool_apply_placements</c>, as declared in the C header.</summary>
        [DllImport(Library, EntryPoint = "elo_pool_apply_placements", CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern uint elo_pool_apply_placements(IntPtr pool, int* entrants, int* offsets, int match_count, int* places);

        /// <summary><c>elo_pool_set_clock</c>, as declared in the C header.</summary>
        [DllImport(Library, EntryPoint = "elo_pool_set_clock", CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern uint elo_pool_set_clock(IntPtr pool, double seconds);

        /// <summary><c>elo_pool_apply_events</c>, as declared in the C header.</summary>
        [DllImport(Library, EntryPoint = "elo_pool_apply_events", CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern uint elo_pool_apply_events(IntPtr pool, int* player_a, int* player_b, float* score_a, int count, void* out_events, int events_capacity, int* out_event_count);

        /// <summary><c>elo_pool_apply_decay</c>, as declared in the C header.</summary>
        [DllImport(Library, EntryPoint = "elo_pool_apply_decay", CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern uint elo_pool_apply_decay(IntPtr pool, double now, void* out_events, int events_capacity, int* out_event_count, int* out_decayed);

        /// <summary><c>elo_pool_get_leagues</c>, as declared in the C header.</summary>
        [DllImport(Library, EntryPoint = "elo_pool_get_leagues", CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern uint elo_pool_get_leagues(IntPtr pool, int start, int count, int* out_leagues);
    }
}
