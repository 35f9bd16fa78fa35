using System;
using System.Runtime.CompilerServices;
using System.Text;
using RankingElo.Native;

namespace RankingElo
{
    /// <summary>
    /// A ladder of players with state (rating, games, streak, flags) rated under one set of
    /// rules: matches are applied in order and atomically, leaderboards are queried without
    /// copying the pool, and the whole pool saves to JSON or to a file (atomically).
    /// </summary>
    /// <remarks>
    /// Safe to use from several threads: each call is serialized and atomic in native code.
    /// With <see cref="EloSettings.ZeroSumTotal"/> set, the sum of all ratings stays at that
    /// total (002's zero-sum ladder) after every call: each match (a team match or a
    /// free-for-all is one match), each player set or added, decay, season end, new rules.
    /// </remarks>
    /// <example>
    /// <code>
    /// using (var rules = new EloRules())
    /// using (var pool = new RatingPool(rules))
    /// {
    ///     pool.AddPlayers(100);
    ///     pool.Apply(new[] { 0, 2 }, new[] { 1, 3 }, new[] { 1f, 0.5f });
    ///     int[] best = pool.Top(10);
    /// }
    /// </code>
    /// </example>
    public sealed partial class RatingPool : IDisposable
    {
        private readonly EloPoolHandle handle;
        private readonly Burst.BurstSafety burstSafety = new Burst.BurstSafety();

        /// <summary>An empty pool rated under a copy of <paramref name="rules"/> (the rules may be disposed afterwards).</summary>
        /// <param name="rules">The rating rules.</param>
        public unsafe RatingPool(EloRules rules)
        {
            if (rules == null) throw new ArgumentNullException("rules");
            EloPool* pool = null;
            using (var lease = rules.Lease())
            {
                ThrowHelper.Check(NativeMethods.elo_pool_new(EloRules.Config(lease), &pool));
            }
            handle = EloPoolHandle.Wrap(pool);
        }

        private RatingPool(EloPoolHandle handle)
        {
            this.handle = handle;
        }

        /// <summary>A pool restored from a save made by <see cref="ToJson"/>, with the rules stored in the save.</summary>
        /// <param name="save">The save JSON.</param>
        /// <returns>The pool.</returns>
        /// <exception cref="EloSaveException">The save is truncated, corrupted or inconsistent.</exception>
        /// <exception cref="DllNotFoundException">The native library is missing or cannot load here (the message names the binary and the platform; a later call tries again).</exception>
        public static RatingPool FromJson(string save)
        {
            if (save == null) throw new ArgumentNullException("save");
            PluginBinary.EnsureLoaded();
            return FromJsonLoaded(save);
        }

        // Compiled only once the library loads (see EloRules.NewDefault).
        [MethodImpl(MethodImplOptions.NoInlining)]
        private static unsafe RatingPool FromJsonLoaded(string save)
        {
            byte[] utf8 = Encoding.UTF8.GetBytes(save);
            EloPool* pool = null;
            fixed (byte* text = utf8)
            {
                ThrowHelper.Check(NativeMethods.elo_pool_from_json(text, utf8.Length, &pool));
            }
            return new RatingPool(EloPoolHandle.Wrap(pool));
        }

        /// <summary>
        /// A pool restored from a save file written by <see cref="Save"/>, with the rules stored
        /// in the save: no rules or empty pool to make first.
        /// </summary>
        /// <param name="path">The file path.</param>
        /// <returns>The pool.</returns>
        /// <exception cref="EloIOException">The file cannot be read (missing file or folder, no permission); the message names the path.</exception>
        /// <exception cref="EloSaveException">The file is not a valid save.</exception>
        /// <exception cref="EloArgumentException">The path does not name a file.</exception>
        /// <exception cref="DllNotFoundException">The native library is missing or cannot load here (the message names the binary and the platform; a later call tries again).</exception>
        public static RatingPool FromFile(string path)
        {
            byte[] utf8 = PathBytes(path);
            PluginBinary.EnsureLoaded();
            return FromFileLoaded(utf8);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static unsafe RatingPool FromFileLoaded(byte[] utf8)
        {
            EloPool* pool = null;
            fixed (byte* text = utf8)
            {
                ThrowHelper.Check(NativeMethods.elo_pool_from_file(text, utf8.Length, &pool));
            }
            return new RatingPool(EloPoolHandle.Wrap(pool));
        }

        /// <summary>Number of players.</summary>
        public unsafe int Count
        {
            get
            {
                int count;
                using (var lease = Lease())
                {
                    ThrowHelper.Check(NativeMethods.elo_pool_len(Pool(lease), &count));
                }
                return count;
            }
        }

        /// <summary>Sum of all ratings (the configured total in a zero-sum pool).</summary>
        public unsafe double Total
        {
            get
            {
                double total;
                using (var lease = Lease())
                {
                    ThrowHelper.Check(NativeMethods.elo_pool_total(Pool(lease), &total));
                }
                return total;
            }
        }

        /// <summary>Adds players at the initial rating.</summary>
        /// <param name="count">How many.</param>
        /// <returns>The index of the first new player.</returns>
        public unsafe int AddPlayers(int count)
        {
            int first;
            using (var lease = Lease())
            {
                ThrowHelper.Check(NativeMethods.elo_pool_add_players(Pool(lease), count, &first));
            }
            return first;
        }

        /// <summary>Adds players with the given states (for example loaded from a server).</summary>
        /// <param name="players">The states.</param>
        /// <returns>The index of the first new player.</returns>
        public unsafe int AddPlayers(PlayerState[] players)
        {
            if (players == null) throw new ArgumentNullException("players");
            int first;
            using (var lease = Lease())
            fixed (PlayerState* states = players)
            {
                ThrowHelper.Check(NativeMethods.elo_pool_add_player_states(Pool(lease), (EloPlayerState*)states, players.Length, &first));
            }
            return first;
        }

        /// <summary>
        /// A player's state (current rating, games, streak, flags); setting it replaces the state.
        /// In a zero-sum pool setting a state then gives everybody, the player included, the share
        /// <c>(T - sum) / N</c> that keeps the total (one of two players at 1500 set to 1600 with a
        /// total of 3000 reads 1550); to load many ratings, add them to an empty pool with
        /// <see cref="AddPlayers(PlayerState[])"/>. A NaN or infinite rating or peak rating is refused.
        /// </summary>
        /// <param name="index">The player's index.</param>
        /// <exception cref="ArgumentOutOfRangeException"><paramref name="index"/> is negative or not less than <see cref="Count"/>.</exception>
        public unsafe PlayerState this[int index]
        {
            get
            {
                CheckIndex(index);
                PlayerState player;
                using (var lease = Lease())
                {
                    ThrowHelper.Check(NativeMethods.elo_pool_get_player(Pool(lease), index, (EloPlayerState*)&player));
                }
                return player;
            }
            set
            {
                CheckIndex(index);
                using (var lease = Lease())
                {
                    ThrowHelper.Check(NativeMethods.elo_pool_set_player(Pool(lease), index, (EloPlayerState*)&value));
                }
            }
        }

        /// <summary>Throws <see cref="ArgumentOutOfRangeException"/>, as .NET collections do, for an index outside the pool.</summary>
        private void CheckIndex(int index)
        {
            int count = Count;
            if ((uint)index >= (uint)count)
            {
                throw new ArgumentOutOfRangeException("index", index, "the pool has " + count + " players");
            }
        }

        /// <summary>Copies the ratings of players <c>start .. start + ratings.Length</c> into <paramref name="ratings"/>.</summary>
        /// <param name="ratings">Receives the ratings.</param>
        /// <param name="start">Index of the first player.</param>
        public unsafe void GetRatings(float[] ratings, int start = 0)
        {
            if (ratings == null) throw new ArgumentNullException("ratings");
            using (var lease = Lease())
            fixed (float* output = ratings)
            {
                ThrowHelper.Check(NativeMethods.elo_pool_get_ratings(Pool(lease), start, ratings.Length, output));
            }
        }

        /// <summary>Copies the states of players <c>start .. start + players.Length</c> into <paramref name="players"/>.</summary>
        /// <param name="players">Receives the states.</param>
        /// <param name="start">Index of the first player.</param>
        public unsafe void GetPlayers(PlayerState[] players, int start = 0)
        {
            if (players == null) throw new ArgumentNullException("players");
            using (var lease = Lease())
            fixed (PlayerState* output = players)
            {
                ThrowHelper.Check(NativeMethods.elo_pool_get_players(Pool(lease), start, players.Length, (EloPlayerState*)output));
            }
        }

        /// <summary>Copies the league indices (0 = lowest) of players <c>start .. start + leagues.Length</c> into <paramref name="leagues"/>.</summary>
        /// <param name="leagues">Receives the league indices.</param>
        /// <param name="start">Index of the first player.</param>
        public unsafe void GetLeagues(int[] leagues, int start = 0)
        {
            if (leagues == null) throw new ArgumentNullException("leagues");
            using (var lease = Lease())
            fixed (int* output = leagues)
            {
                ThrowHelper.Check(NativeMethods.elo_pool_get_leagues(Pool(lease), start, leagues.Length, output));
            }
        }

        /// <summary>Applies one match.</summary>
        /// <param name="playerA">Index of player A.</param>
        /// <param name="playerB">Index of player B.</param>
        /// <param name="result">The result seen from A.</param>
        public unsafe void Apply(int playerA, int playerB, MatchResult result)
        {
            float score = result.Score();
            using (var lease = Lease())
            {
                ThrowHelper.Check(NativeMethods.elo_pool_apply(Pool(lease), &playerA, &playerB, &score, 1, null, null, null));
            }
        }

        /// <summary>
        /// Applies matches in order, atomically: <c>playerA[i]</c> against <c>playerB[i]</c>
        /// with A's score <c>scoreA[i]</c>. A bad match anywhere (index out of range, a player
        /// against themself, a bad score) changes nothing and the exception message gives its
        /// position (<c>matches[17]: …</c>). The optional arrays receive, per match, the rating
        /// changes and A's expected score.
        /// </summary>
        /// <param name="playerA">Indices of the A players.</param>
        /// <param name="playerB">Indices of the B players.</param>
        /// <param name="scoreA">A's scores in [0, 1].</param>
        /// <param name="deltaA">Optional: receives A's rating changes.</param>
        /// <param name="deltaB">Optional: receives B's rating changes.</param>
        /// <param name="expectedA">Optional: receives A's expected scores.</param>
        public void Apply(int[] playerA, int[] playerB, float[] scoreA, float[] deltaA = null, float[] deltaB = null, float[] expectedA = null)
        {
            RateScores(playerA, playerB, scoreA, deltaA, deltaB, expectedA, false);
        }

        /// <summary>The body of <see cref="Apply(int[], int[], float[], float[], float[], float[])"/> and <see cref="RatePeriod"/>: the arrays checked, then one native call.</summary>
        private unsafe void RateScores(int[] playerA, int[] playerB, float[] scoreA, float[] deltaA, float[] deltaB, float[] expectedA, bool period)
        {
            int count = MatchCount(playerA, playerB, scoreA, "scoreA");
            Arrays.RequireLengthOrNull(deltaA, "deltaA", count);
            Arrays.RequireLengthOrNull(deltaB, "deltaB", count);
            Arrays.RequireLengthOrNull(expectedA, "expectedA", count);
            using (var lease = Lease())
            fixed (int* a = playerA, b = playerB)
            fixed (float* s = scoreA, da = deltaA, db = deltaB, ea = expectedA)
            {
                ThrowHelper.Check(period
                    ? NativeMethods.elo_pool_rate_period(Pool(lease), a, b, s, count, da, db, ea)
                    : NativeMethods.elo_pool_apply(Pool(lease), a, b, s, count, da, db, ea));
            }
        }

        /// <summary>Applies matches given as points scored (see <see cref="Apply(int[], int[], float[], float[], float[], float[])"/>).</summary>
        /// <param name="playerA">Indices of the A players.</param>
        /// <param name="playerB">Indices of the B players.</param>
        /// <param name="pointsA">Points scored by A.</param>
        /// <param name="pointsB">Points scored by B.</param>
        public unsafe void ApplyPoints(int[] playerA, int[] playerB, float[] pointsA, float[] pointsB)
        {
            int count = MatchCount(playerA, playerB, pointsA, "pointsA");
            Arrays.RequireLength(pointsB, "pointsB", count);
            using (var lease = Lease())
            fixed (int* a = playerA, b = playerB)
            fixed (float* pa = pointsA, pb = pointsB)
            {
                ThrowHelper.Check(NativeMethods.elo_pool_apply_points(Pool(lease), a, b, pa, pb, count, null, null, null));
            }
        }

        /// <summary>
        /// <see cref="Apply(int[], int[], float[], float[], float[], float[])"/> over spans (slices
        /// of larger buffers, stack memory): allocates nothing. An empty output span means the
        /// output is not wanted; a non-empty one has one element per match.
        /// </summary>
        /// <param name="playerA">Indices of the A players.</param>
        /// <param name="playerB">Indices of the B players.</param>
        /// <param name="scoreA">A's scores in [0, 1].</param>
        /// <param name="deltaA">Receives A's rating changes, or empty.</param>
        /// <param name="deltaB">Receives B's rating changes, or empty.</param>
        /// <param name="expectedA">Receives A's expected scores, or empty.</param>
        public unsafe void Apply(ReadOnlySpan<int> playerA, ReadOnlySpan<int> playerB, ReadOnlySpan<float> scoreA, Span<float> deltaA, Span<float> deltaB, Span<float> expectedA)
        {
            int count = playerA.Length;
            Arrays.RequireSpanLength(playerB.Length, "playerB", count);
            Arrays.RequireSpanLength(scoreA.Length, "scoreA", count);
            Arrays.RequireOptionalSpanLength(deltaA.Length, "deltaA", count);
            Arrays.RequireOptionalSpanLength(deltaB.Length, "deltaB", count);
            Arrays.RequireOptionalSpanLength(expectedA.Length, "expectedA", count);
            if (count == 0) return;
            using (var lease = Lease())
            fixed (int* a = &playerA[0], b = &playerB[0])
            fixed (float* s = &scoreA[0])
            fixed (float* da = &deltaA.GetPinnableReference(), db = &deltaB.GetPinnableReference(), ea = &expectedA.GetPinnableReference())
            {
                // An empty output span is "not wanted": NULL for the engine.
                ThrowHelper.Check(NativeMethods.elo_pool_apply(Pool(lease), a, b, s, count, deltaA.Length == 0 ? null : da, deltaB.Length == 0 ? null : db, expectedA.Length == 0 ? null : ea));
            }
        }

        /// <summary>Applies matches given as spans, without per-match outputs; allocates nothing.</summary>
        /// <param name="playerA">Indices of the A players.</param>
        /// <param name="playerB">Indices of the B players.</param>
        /// <param name="scoreA">A's scores in [0, 1].</param>
        public void Apply(ReadOnlySpan<int> playerA, ReadOnlySpan<int> playerB, ReadOnlySpan<float> scoreA)
        {
            Apply(playerA, playerB, scoreA, Span<float>.Empty, Span<float>.Empty, Span<float>.Empty);
        }

        /// <summary>
        /// Applies team matches in order, atomically. Match <c>m</c>'s team A is
        /// <c>members[teamOffsets[2m] .. teamOffsets[2m + 1]]</c> and its team B
        /// <c>members[teamOffsets[2m + 1] .. teamOffsets[2m + 2]]</c> (player indices;
        /// <paramref name="teamOffsets"/> has <c>2 * matches + 1</c> entries from 0);
        /// <c>scoreA[m]</c> is team A's score. A bad match (index out of range, a player twice,
        /// a team of 0 or more than 64) changes nothing and the message gives its position.
        /// Allocates nothing.
        /// </summary>
        /// <param name="members">Player indices of every team, one run per team.</param>
        /// <param name="teamOffsets">Where each team's run starts, and the end.</param>
        /// <param name="scoreA">Team A's score per match.</param>
        /// <param name="weights">Empty, or one weight per entry of <paramref name="members"/>.</param>
        public void ApplyTeams(ReadOnlySpan<int> members, ReadOnlySpan<int> teamOffsets, ReadOnlySpan<float> scoreA, ReadOnlySpan<float> weights)
        {
            ApplyTeams(members, teamOffsets, scoreA, weights, Span<LeagueChange>.Empty);
        }

        /// <summary>
        /// Applies team matches (see the overload without events) and reports the promotions
        /// and demotions they caused, in match order. Allocates nothing.
        /// </summary>
        /// <param name="members">Player indices of every team, one run per team.</param>
        /// <param name="teamOffsets">Where each team's run starts, and the end.</param>
        /// <param name="scoreA">Team A's score per match.</param>
        /// <param name="weights">Empty, or one weight per entry of <paramref name="members"/>.</param>
        /// <param name="events">Receives the league changes (at most one per entry of <paramref name="members"/>), or empty.</param>
        /// <returns>How many league changes happened (more than <paramref name="events"/> holds means some were not written).</returns>
        public unsafe int ApplyTeams(ReadOnlySpan<int> members, ReadOnlySpan<int> teamOffsets, ReadOnlySpan<float> scoreA, ReadOnlySpan<float> weights, Span<LeagueChange> events)
        {
            int matches = scoreA.Length;
            Arrays.RequireSpanLength(teamOffsets.Length, "teamOffsets", 2 * matches + 1);
            if (weights.Length != 0) Arrays.RequireSpanLength(weights.Length, "weights", members.Length);
            if (teamOffsets[2 * matches] != members.Length) throw new EloArgumentException(EloError.InvalidLength, "teamOffsets ends at " + teamOffsets[2 * matches] + " but members has " + members.Length + " entries");
            int happened = 0;
            using (var lease = Lease())
            fixed (int* m = &members.GetPinnableReference(), o = &teamOffsets.GetPinnableReference())
            fixed (float* s = &scoreA.GetPinnableReference(), w = &weights.GetPinnableReference())
            fixed (LeagueChange* e = &events.GetPinnableReference())
            {
                ThrowHelper.Check(NativeMethods.elo_pool_apply_teams_events(Pool(lease), m, o, matches, weights.Length == 0 ? null : w, s,
                    (EloLeagueChange*)e, events.Length, events.Length == 0 ? null : &happened));
            }
            return happened;
        }

        /// <summary>Applies team matches given as arrays (see the span overload).</summary>
        /// <param name="members">Player indices of every team, one run per team.</param>
        /// <param name="teamOffsets">Where each team's run starts, and the end.</param>
        /// <param name="scoreA">Team A's score per match.</param>
        /// <param name="weights">null, or one weight per entry of <paramref name="members"/>.</param>
        public void ApplyTeams(int[] members, int[] teamOffsets, float[] scoreA, float[] weights = null)
        {
            if (members == null) throw new ArgumentNullException("members");
            if (teamOffsets == null) throw new ArgumentNullException("teamOffsets");
            if (scoreA == null) throw new ArgumentNullException("scoreA");
            ApplyTeams(new ReadOnlySpan<int>(members), new ReadOnlySpan<int>(teamOffsets), new ReadOnlySpan<float>(scoreA), weights == null ? ReadOnlySpan<float>.Empty : new ReadOnlySpan<float>(weights));
        }

        /// <summary>
        /// Applies free-for-alls in order, atomically. Match <c>m</c>'s entrants are
        /// <c>entrants[offsets[m] .. offsets[m + 1]]</c> (2 to 256 player indices) and
        /// <paramref name="places"/> gives each entry's place, 1 to the match's entrant count
        /// (ties share a place). A bad match changes nothing and the message gives its position.
        /// Allocates nothing.
        /// </summary>
        /// <param name="entrants">Player indices, one run per match.</param>
        /// <param name="offsets">Where each match's run starts, and the end (<c>matches + 1</c> entries).</param>
        /// <param name="places">One place per entry of <paramref name="entrants"/>.</param>
        public void ApplyPlacements(ReadOnlySpan<int> entrants, ReadOnlySpan<int> offsets, ReadOnlySpan<int> places)
        {
            ApplyPlacements(entrants, offsets, places, Span<LeagueChange>.Empty);
        }

        /// <summary>
        /// Applies free-for-alls (see the overload without events) and reports the promotions
        /// and demotions they caused, in match order. Allocates nothing.
        /// </summary>
        /// <param name="entrants">Player indices, one run per match.</param>
        /// <param name="offsets">Where each match's run starts, and the end (<c>matches + 1</c> entries).</param>
        /// <param name="places">One place per entry of <paramref name="entrants"/>.</param>
        /// <param name="events">Receives the league changes (at most one per entry), or empty.</param>
        /// <returns>How many league changes happened.</returns>
        public unsafe int ApplyPlacements(ReadOnlySpan<int> entrants, ReadOnlySpan<int> offsets, ReadOnlySpan<int> places, Span<LeagueChange> events)
        {
            if (offsets.Length == 0) throw new EloArgumentException(EloError.InvalidLength, "offsets needs at least one entry (0)");
            Arrays.RequireSpanLength(places.Length, "places", entrants.Length);
            if (offsets[offsets.Length - 1] != entrants.Length) throw new EloArgumentException(EloError.InvalidLength, "offsets ends at " + offsets[offsets.Length - 1] + " but entrants has " + entrants.Length + " entries");
            int happened = 0;
            using (var lease = Lease())
            fixed (int* e = &entrants.GetPinnableReference(), o = &offsets.GetPinnableReference(), p = &places.GetPinnableReference())
            fixed (LeagueChange* ev = &events.GetPinnableReference())
            {
                ThrowHelper.Check(NativeMethods.elo_pool_apply_placements_events(Pool(lease), e, o, offsets.Length - 1, p,
                    (EloLeagueChange*)ev, events.Length, events.Length == 0 ? null : &happened));
            }
            return happened;
        }

        /// <summary>Applies free-for-alls given as arrays (see the span overload).</summary>
        /// <param name="entrants">Player indices, one run per match.</param>
        /// <param name="offsets">Where each match's run starts, and the end.</param>
        /// <param name="places">One place per entry of <paramref name="entrants"/>.</param>
        public void ApplyPlacements(int[] entrants, int[] offsets, int[] places)
        {
            if (entrants == null) throw new ArgumentNullException("entrants");
            if (offsets == null) throw new ArgumentNullException("offsets");
            if (places == null) throw new ArgumentNullException("places");
            ApplyPlacements(new ReadOnlySpan<int>(entrants), new ReadOnlySpan<int>(offsets), new ReadOnlySpan<int>(places));
        }

        /// <summary>Writes the best players' indices, best first, into <paramref name="indices"/> (at most its length); allocates nothing.</summary>
        /// <param name="indices">Receives the indices.</param>
        /// <returns>How many were written (fewer when the pool is smaller).</returns>
        public int Top(Span<int> indices)
        {
            return Extreme(indices, true);
        }

        /// <summary>Writes the lowest-rated players' indices, lowest first, into <paramref name="indices"/>; allocates nothing.</summary>
        /// <param name="indices">Receives the indices.</param>
        /// <returns>How many were written.</returns>
        public int Bottom(Span<int> indices)
        {
            return Extreme(indices, false);
        }

        private unsafe int Extreme(Span<int> indices, bool best)
        {
            int written = 0;
            if (indices.Length == 0) return 0;
            using (var lease = Lease())
            fixed (int* output = &indices[0])
            {
                ThrowHelper.Check(best
                    ? NativeMethods.elo_pool_top(Pool(lease), indices.Length, output, &written)
                    : NativeMethods.elo_pool_bottom(Pool(lease), indices.Length, output, &written));
            }
            return written;
        }

        /// <summary>Writes the number of players per league (lowest first) into <paramref name="counts"/>; allocates nothing.</summary>
        /// <param name="counts">Receives one count per league; needs <see cref="LeagueCount"/> elements.</param>
        /// <returns>The number of leagues written.</returns>
        /// <exception cref="EloArgumentException"><paramref name="counts"/> is shorter than the number of leagues.</exception>
        public unsafe int LeagueCounts(Span<int> counts)
        {
            int leagues;
            using (var lease = Lease())
            fixed (int* output = &counts.GetPinnableReference())
            {
                ThrowHelper.Check(NativeMethods.elo_pool_league_counts(Pool(lease), counts.Length == 0 ? null : output, counts.Length, &leagues));
            }
            return leagues;
        }

        /// <summary>The number of leagues (1 when none are configured): the length <see cref="LeagueCounts(Span{int})"/> needs.</summary>
        public unsafe int LeagueCount
        {
            get
            {
                int leagues;
                using (var lease = Lease())
                {
                    NativeMethods.elo_pool_league_counts(Pool(lease), null, 0, &leagues);
                }
                return leagues;
            }
        }

        /// <summary>Copies the ratings of players <c>start .. start + ratings.Length</c> into a span; allocates nothing.</summary>
        /// <param name="ratings">Receives the ratings.</param>
        /// <param name="start">Index of the first player.</param>
        public unsafe void GetRatings(Span<float> ratings, int start)
        {
            if (ratings.Length == 0) return;
            using (var lease = Lease())
            fixed (float* output = &ratings[0])
            {
                ThrowHelper.Check(NativeMethods.elo_pool_get_ratings(Pool(lease), start, ratings.Length, output));
            }
        }

        /// <summary>Copies the league indices of players <c>start .. start + leagues.Length</c> into a span; allocates nothing.</summary>
        /// <param name="leagues">Receives the league indices.</param>
        /// <param name="start">Index of the first player.</param>
        public unsafe void GetLeagues(Span<int> leagues, int start)
        {
            if (leagues.Length == 0) return;
            using (var lease = Lease())
            fixed (int* output = &leagues[0])
            {
                ThrowHelper.Check(NativeMethods.elo_pool_get_leagues(Pool(lease), start, leagues.Length, output));
            }
        }

        /// <summary>The best players, best first (equal ratings: lower index first).</summary>
        /// <param name="count">How many at most.</param>
        /// <returns>Their indices.</returns>
        public int[] Top(int count)
        {
            return Extreme(count, true);
        }

        /// <summary>The lowest-rated players, lowest first.</summary>
        /// <param name="count">How many at most.</param>
        /// <returns>Their indices.</returns>
        public int[] Bottom(int count)
        {
            return Extreme(count, false);
        }

        private unsafe int[] Extreme(int count, bool best)
        {
            if (count < 0) throw new ArgumentOutOfRangeException("count", count, "must not be negative");
            var indices = new int[count];
            int written;
            using (var lease = Lease())
            fixed (int* output = indices)
            {
                ThrowHelper.Check(best
                    ? NativeMethods.elo_pool_top(Pool(lease), count, output, &written)
                    : NativeMethods.elo_pool_bottom(Pool(lease), count, output, &written));
            }
            if (written == count) return indices;
            var trimmed = new int[written];
            Array.Copy(indices, trimmed, written);
            return trimmed;
        }

        /// <summary>A player's rank: 1 is the best.</summary>
        /// <param name="index">The player's index.</param>
        /// <returns>The rank.</returns>
        /// <exception cref="ArgumentOutOfRangeException"><paramref name="index"/> is outside the pool.</exception>
        public unsafe int RankOf(int index)
        {
            int rank;
            using (var lease = Lease())
            {
                ThrowHelper.Check(NativeMethods.elo_pool_rank(Pool(lease), index, &rank));
            }
            return rank;
        }

        /// <summary>A player's league (0 = lowest); <see cref="EloRules.LeagueName"/> gives its name.</summary>
        /// <param name="index">The player's index.</param>
        /// <returns>The league index.</returns>
        /// <exception cref="ArgumentOutOfRangeException"><paramref name="index"/> is outside the pool.</exception>
        public unsafe int LeagueOf(int index)
        {
            int league;
            using (var lease = Lease())
            {
                ThrowHelper.Check(NativeMethods.elo_pool_league_of(Pool(lease), index, &league));
            }
            return league;
        }

        /// <summary>Players per league, lowest league first.</summary>
        /// <returns>One count per league (one entry when no leagues are configured).</returns>
        public unsafe int[] LeagueCounts()
        {
            int leagues;
            using (var lease = Lease())
            {
                NativeMethods.elo_pool_league_counts(Pool(lease), null, 0, &leagues);
                var counts = new int[leagues];
                fixed (int* output = counts)
                {
                    ThrowHelper.Check(NativeMethods.elo_pool_league_counts(Pool(lease), output, counts.Length, &leagues));
                }
                return counts;
            }
        }

        /// <summary>The pool (rules, ratings, player state) as save JSON.</summary>
        /// <returns>The JSON text.</returns>
        public unsafe string ToJson()
        {
            using (var lease = Lease())
            {
                int length = 0;
                NativeMethods.elo_pool_to_json(Pool(lease), null, 0, &length);
                byte[] buffer = new byte[length + 1];
                fixed (byte* p = buffer)
                {
                    ThrowHelper.Check(NativeMethods.elo_pool_to_json(Pool(lease), p, buffer.Length, &length));
                }
                return Encoding.UTF8.GetString(buffer, 0, length);
            }
        }

        /// <summary>Replaces the whole pool (rules included) with a save; a bad save changes nothing.</summary>
        /// <param name="save">JSON made by <see cref="ToJson"/>.</param>
        /// <exception cref="EloSaveException">The save is truncated, corrupted or inconsistent.</exception>
        public unsafe void LoadJson(string save)
        {
            if (save == null) throw new ArgumentNullException("save");
            byte[] utf8 = Encoding.UTF8.GetBytes(save);
            using (var lease = Lease())
            fixed (byte* text = utf8)
            {
                ThrowHelper.Check(NativeMethods.elo_pool_load_json(Pool(lease), text, utf8.Length));
            }
        }

        /// <summary>
        /// Saves the pool to a file atomically (write a temporary file, flush, rename). The
        /// folder must exist: the engine does not create folders.
        /// </summary>
        /// <param name="path">The file path.</param>
        /// <exception cref="EloIOException">The file could not be written (a missing folder, no permission); the message names the path and the cause.</exception>
        public unsafe void Save(string path)
        {
            byte[] utf8 = PathBytes(path);
            using (var lease = Lease())
            fixed (byte* text = utf8)
            {
                ThrowHelper.Check(NativeMethods.elo_pool_save_file(Pool(lease), text, utf8.Length));
            }
        }

        /// <summary>
        /// Replaces the pool (rules included) with the save in a file; a missing, truncated or
        /// corrupted file changes nothing. Both exceptions are <see cref="System.IO.IOException"/>s;
        /// <see cref="TryLoad(string, out string)"/> returns false instead of throwing either.
        /// </summary>
        /// <param name="path">The file path.</param>
        /// <exception cref="EloIOException">The file could not be read (missing, not a regular file, no permission); the message names the path.</exception>
        /// <exception cref="EloSaveException">The file is not a valid save.</exception>
        /// <exception cref="EloArgumentException">The path does not name a file.</exception>
        public void Load(string path)
        {
            ThrowHelper.Check(LoadFile(path));
        }

        /// <summary>
        /// Replaces the pool with the save in a file if it can be read and is valid; otherwise
        /// leaves the pool as it was and returns false (no exception), for a game that starts a
        /// new ladder when there is no usable save: a missing file or folder, an unreadable file,
        /// a truncated or corrupted save, a path that names no file all return false.
        /// </summary>
        /// <param name="path">The file path.</param>
        /// <param name="error">Why the file was not loaded (the engine's message), or null.</param>
        /// <returns>Whether the save was loaded.</returns>
        public bool TryLoad(string path, out string error)
        {
            EloResult code = LoadFile(path);
            error = code == EloResult.Ok ? null : ThrowHelper.LastErrorMessage();
            return code == EloResult.Ok;
        }

        /// <summary>As <see cref="TryLoad(string, out string)"/>, without the reason.</summary>
        /// <param name="path">The file path.</param>
        /// <returns>Whether the save was loaded.</returns>
        public bool TryLoad(string path)
        {
            string ignored;
            return TryLoad(path, out ignored);
        }

        private unsafe EloResult LoadFile(string path)
        {
            byte[] utf8 = PathBytes(path);
            using (var lease = Lease())
            fixed (byte* text = utf8)
            {
                return NativeMethods.elo_pool_load_file(Pool(lease), text, utf8.Length);
            }
        }

        /// <summary>Whether <see cref="Dispose"/> has been called.</summary>
        public bool IsDisposed
        {
            get { return handle.IsClosed; }
        }

        /// <summary>Releases the native pool; calling it again does nothing.</summary>
        /// <exception cref="InvalidOperationException">With Unity's collection checks (the Editor): a scheduled job still holds the pool's <see cref="BurstHandle"/> (complete it first); nothing is released.</exception>
        public void Dispose()
        {
            burstSafety.Release();
            handle.Dispose();
        }

        private static byte[] PathBytes(string path)
        {
            if (path == null) throw new ArgumentNullException("path");
            return Encoding.UTF8.GetBytes(path);
        }

        private static int MatchCount(int[] playerA, int[] playerB, float[] values, string valuesName)
        {
            if (playerA == null) throw new ArgumentNullException("playerA");
            if (playerB == null) throw new ArgumentNullException("playerB");
            if (values == null) throw new ArgumentNullException(valuesName);
            if (playerB.Length != playerA.Length || values.Length != playerA.Length)
            {
                throw new EloArgumentException(EloError.InvalidLength, "playerA, playerB and " + valuesName + " must have the same length");
            }
            return playerA.Length;
        }

        /// <summary>
        /// This pool as an unmanaged handle for Burst jobs (<see cref="Burst.EloBurst"/>). It is
        /// valid until this pool is disposed: keep it alive while jobs run.
        /// </summary>
        /// <exception cref="ObjectDisposedException">The pool was disposed.</exception>
        public Burst.EloPoolHandle BurstHandle
        {
            get
            {
                using (var lease = Lease())
                {
                    return new Burst.EloPoolHandle(lease.Pointer, burstSafety);
                }
            }
        }

        private HandleLease Lease()
        {
            return new HandleLease(handle, "RatingPool");
        }

        private static unsafe EloPool* Pool(HandleLease lease)
        {
            return (EloPool*)lease.Pointer;
        }
    }
}
