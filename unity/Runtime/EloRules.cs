using System;
using System.Runtime.CompilerServices;
using System.Text;
using RankingElo.Native;
#if UNITY_5_3_OR_NEWER
using Unity.Collections;
using Unity.Collections.LowLevel.Unsafe;
#endif

namespace RankingElo
{
    /// <summary>New ratings of the two players of a match.</summary>
    public struct RatingPair
    {
        /// <summary>Player A's new rating.</summary>
        public float A;

        /// <summary>Player B's new rating.</summary>
        public float B;

        /// <summary>Creates a pair.</summary>
        /// <param name="a">Player A's rating.</param>
        /// <param name="b">Player B's rating.</param>
        public RatingPair(float a, float b)
        {
            A = a;
            B = b;
        }

        /// <summary>Formats as <c>(a, b)</c>.</summary>
        /// <returns>The text.</returns>
        public override string ToString()
        {
            return string.Format(System.Globalization.CultureInfo.InvariantCulture, "({0}, {1})", A, B);
        }
    }

    /// <summary>
    /// A validated rating configuration living in native memory: expected-score model, K
    /// policy, rounding, floor, bonuses, streaks and leagues. Create it once, use it from any
    /// thread, dispose it when done.
    /// </summary>
    /// <example>
    /// <code>
    /// using (var rules = new EloRules(new EloSettings { Rounding = Rounding.Truncate }))
    /// {
    ///     RatingPair r = rules.Rate(1700f, 1300f, MatchResult.Win);   // (1702, 1298)
    /// }
    /// </code>
    /// </example>
    public sealed class EloRules : IDisposable
    {
        private readonly EloConfigHandle handle;
        private readonly Burst.BurstSafety burstSafety = new Burst.BurstSafety();

        /// <summary>The default rules: logistic (c = 400), K = 32, initial rating 1500, no rounding.</summary>
        /// <exception cref="DllNotFoundException">The native library is missing or cannot load here (the message names the binary and the platform; a later call tries again).</exception>
        public EloRules()
        {
            PluginBinary.EnsureLoaded();
            handle = NewDefault();
        }

        // The native calls of the constructors are compiled only once the library loads: Mono
        // compiles a method's native calls with the method, and one compiled while the library
        // was missing keeps throwing after it is fixed.
        [MethodImpl(MethodImplOptions.NoInlining)]
        private static unsafe EloConfigHandle NewDefault()
        {
            EloConfig* config = null;
            ThrowHelper.Check(NativeMethods.elo_config_new(&config));
            return EloConfigHandle.Wrap(config);
        }

        /// <summary>Rules from settings made in code.</summary>
        /// <param name="settings">The settings.</param>
        /// <exception cref="EloArgumentException">A setting is out of range (the message names it).</exception>
        public EloRules(EloSettings settings)
        {
            if (settings == null) throw new ArgumentNullException("settings");
            handle = Parse(settings.ToJson());
        }

        private EloRules(EloConfigHandle handle)
        {
            this.handle = handle;
        }

        /// <summary>
        /// Rules from the engine's JSON configuration: every field, its default and range are in
        /// the repository's <c>docs/configuration.md</c>; <see cref="EloSettings"/> writes the same
        /// JSON from code.
        /// </summary>
        /// <param name="json">The JSON text; unknown fields are refused.</param>
        /// <returns>The rules.</returns>
        /// <exception cref="EloArgumentException">Malformed JSON, an unknown field or an out-of-range setting (the message names it).</exception>
        public static EloRules FromJson(string json)
        {
            if (json == null) throw new ArgumentNullException("json");
            return new EloRules(Parse(json));
        }

        private static EloConfigHandle Parse(string json)
        {
            PluginBinary.EnsureLoaded();
            return ParseLoaded(json);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static unsafe EloConfigHandle ParseLoaded(string json)
        {
            byte[] utf8 = Encoding.UTF8.GetBytes(json);
            EloConfig* config = null;
            fixed (byte* text = utf8)
            {
                ThrowHelper.Check(NativeMethods.elo_config_from_json(text, utf8.Length, &config));
            }
            return EloConfigHandle.Wrap(config);
        }

        /// <summary>The configuration as JSON, every field written out.</summary>
        /// <returns>The JSON text.</returns>
        public unsafe string ToJson()
        {
            using (var lease = Lease())
            {
                int length = 0;
                NativeMethods.elo_config_to_json(Config(lease), null, 0, &length);
                byte[] buffer = new byte[length + 1];
                fixed (byte* p = buffer)
                {
                    ThrowHelper.Check(NativeMethods.elo_config_to_json(Config(lease), p, buffer.Length, &length));
                }
                return Encoding.UTF8.GetString(buffer, 0, length);
            }
        }

        /// <summary>Expected score of A against B, in [0, 1] (B's is one minus it).</summary>
        /// <param name="ratingA">Player A's rating.</param>
        /// <param name="ratingB">Player B's rating.</param>
        /// <returns>The expected score.</returns>
        public unsafe float ExpectedScore(float ratingA, float ratingB)
        {
            float expected;
            using (var lease = Lease())
            {
                ThrowHelper.Check(NativeMethods.elo_expected_score(Config(lease), ratingA, ratingB, &expected));
            }
            return expected;
        }

        /// <summary>Rates a match between players known by rating (K from a rating-only policy).</summary>
        /// <param name="ratingA">Player A's rating.</param>
        /// <param name="ratingB">Player B's rating.</param>
        /// <param name="scoreA">Player A's score in [0, 1].</param>
        /// <returns>Both new ratings.</returns>
        /// <exception cref="EloInvalidOperationException">The K policy (FIDE, games played) needs <see cref="RatePlayers(ref PlayerState, ref PlayerState, float)"/>.</exception>
        public unsafe RatingPair Rate(float ratingA, float ratingB, float scoreA)
        {
            RatingPair result = default(RatingPair);
            using (var lease = Lease())
            {
                ThrowHelper.Check(NativeMethods.elo_rate(Config(lease), ratingA, ratingB, scoreA, &result.A, &result.B));
            }
            return result;
        }

        /// <summary>Rates a win, draw or loss of A.</summary>
        /// <param name="ratingA">Player A's rating.</param>
        /// <param name="ratingB">Player B's rating.</param>
        /// <param name="result">The result seen from A.</param>
        /// <returns>Both new ratings.</returns>
        public RatingPair Rate(float ratingA, float ratingB, MatchResult result)
        {
            return Rate(ratingA, ratingB, result.Score());
        }

        /// <summary>Rates a match from the points scored: A's score is <c>pointsA / (pointsA + pointsB)</c> (0:0 is a draw).</summary>
        /// <param name="ratingA">Player A's rating.</param>
        /// <param name="ratingB">Player B's rating.</param>
        /// <param name="pointsA">Points scored by A (not negative).</param>
        /// <param name="pointsB">Points scored by B (not negative).</param>
        /// <returns>Both new ratings.</returns>
        public unsafe RatingPair RatePoints(float ratingA, float ratingB, float pointsA, float pointsB)
        {
            RatingPair result = default(RatingPair);
            using (var lease = Lease())
            {
                ThrowHelper.Check(NativeMethods.elo_rate_points(Config(lease), ratingA, ratingB, pointsA, pointsB, &result.A, &result.B));
            }
            return result;
        }

        /// <summary>Rates a match with the K factors given, ignoring the K policy.</summary>
        /// <param name="ratingA">Player A's rating.</param>
        /// <param name="ratingB">Player B's rating.</param>
        /// <param name="scoreA">Player A's score in [0, 1].</param>
        /// <param name="kA">Player A's K.</param>
        /// <param name="kB">Player B's K.</param>
        /// <returns>Both new ratings.</returns>
        public unsafe RatingPair RateWithK(float ratingA, float ratingB, float scoreA, float kA, float kB)
        {
            RatingPair result = default(RatingPair);
            using (var lease = Lease())
            {
                ThrowHelper.Check(NativeMethods.elo_rate_with_k(Config(lease), ratingA, ratingB, scoreA, kA, kB, &result.A, &result.B));
            }
            return result;
        }

        /// <summary>
        /// Rates a match between players with state, updating both in place: any K policy,
        /// streak penalties and league bonuses apply; games played and streaks advance.
        /// </summary>
        /// <param name="playerA">Player A; updated.</param>
        /// <param name="playerB">Player B; updated (must be a different variable).</param>
        /// <param name="scoreA">Player A's score in [0, 1].</param>
        public unsafe void RatePlayers(ref PlayerState playerA, ref PlayerState playerB, float scoreA)
        {
            using (var lease = Lease())
            {
                fixed (PlayerState* a = &playerA)
                fixed (PlayerState* b = &playerB)
                {
                    ThrowHelper.Check(NativeMethods.elo_rate_players(Config(lease), (EloPlayerState*)a, (EloPlayerState*)b, scoreA));
                }
            }
        }

        /// <summary>Rates a win, draw or loss between players with state (see <see cref="RatePlayers(ref PlayerState, ref PlayerState, float)"/>).</summary>
        /// <param name="playerA">Player A; updated.</param>
        /// <param name="playerB">Player B; updated.</param>
        /// <param name="result">The result seen from A.</param>
        public void RatePlayers(ref PlayerState playerA, ref PlayerState playerB, MatchResult result)
        {
            RatePlayers(ref playerA, ref playerB, result.Score());
        }

        /// <summary>Rates a match between players with state from the points scored.</summary>
        /// <param name="playerA">Player A; updated.</param>
        /// <param name="playerB">Player B; updated.</param>
        /// <param name="pointsA">Points scored by A.</param>
        /// <param name="pointsB">Points scored by B.</param>
        public unsafe void RatePlayersPoints(ref PlayerState playerA, ref PlayerState playerB, float pointsA, float pointsB)
        {
            using (var lease = Lease())
            {
                fixed (PlayerState* a = &playerA)
                fixed (PlayerState* b = &playerB)
                {
                    ThrowHelper.Check(NativeMethods.elo_rate_players_points(Config(lease), (EloPlayerState*)a, (EloPlayerState*)b, pointsA, pointsB));
                }
            }
        }

        /// <summary>
        /// Rates a match between two teams, in place: <paramref name="members"/> holds team A's
        /// <paramref name="countA"/> states, then team B's (1 to 64 members each). The team
        /// rating, the split of the change and the bonuses follow the settings
        /// (<see cref="EloSettings.TeamRating"/>, <see cref="EloSettings.TeamSplit"/>); on an error
        /// no state changes. Allocates nothing.
        /// </summary>
        /// <param name="members">Team A's members, then team B's; updated in place.</param>
        /// <param name="countA">Size of team A.</param>
        /// <param name="scoreA">Team A's score in [0, 1].</param>
        /// <param name="weights">Empty, or one weight per member (time played, for example).</param>
        public unsafe void RateTeams(Span<PlayerState> members, int countA, float scoreA, ReadOnlySpan<float> weights)
        {
            if (countA < 0 || countA > members.Length) throw new ArgumentOutOfRangeException("countA", countA, "must be from 0 to the number of members");
            if (weights.Length != 0) Arrays.RequireSpanLength(weights.Length, "weights", members.Length);
            using (var lease = Lease())
            fixed (PlayerState* m = &members.GetPinnableReference())
            fixed (float* w = &weights.GetPinnableReference())
            {
                ThrowHelper.Check(NativeMethods.elo_rate_teams(Config(lease), (EloPlayerState*)m, countA, members.Length - countA, weights.Length == 0 ? null : w, scoreA));
            }
        }

        /// <summary>Rates a match between two teams given as arrays, in place (see the span overload; this one allocates a combined array).</summary>
        /// <param name="teamA">Team A's members; updated.</param>
        /// <param name="teamB">Team B's members; updated.</param>
        /// <param name="result">The result seen from team A.</param>
        public void RateTeams(PlayerState[] teamA, PlayerState[] teamB, MatchResult result)
        {
            if (teamA == null) throw new ArgumentNullException("teamA");
            if (teamB == null) throw new ArgumentNullException("teamB");
            var members = new PlayerState[teamA.Length + teamB.Length];
            Array.Copy(teamA, members, teamA.Length);
            Array.Copy(teamB, 0, members, teamA.Length, teamB.Length);
            RateTeams(members, teamA.Length, result.Score(), ReadOnlySpan<float>.Empty);
            Array.Copy(members, teamA, teamA.Length);
            Array.Copy(members, teamA.Length, teamB, 0, teamB.Length);
        }

        /// <summary>
        /// Rates a free-for-all of 2 to 256 players, in place: <c>places[i]</c> is player
        /// <c>i</c>'s finishing place from 1 (first) to the number of players; ties share a
        /// place. Every pair of players is a virtual match (docs/teams.md); on an error no
        /// state changes. Allocates nothing.
        /// </summary>
        /// <param name="players">The players; updated in place.</param>
        /// <param name="places">One place per player.</param>
        public unsafe void RatePlacements(Span<PlayerState> players, ReadOnlySpan<int> places)
        {
            Arrays.RequireSpanLength(places.Length, "places", players.Length);
            using (var lease = Lease())
            fixed (PlayerState* p = &players.GetPinnableReference())
            fixed (int* pl = &places.GetPinnableReference())
            {
                ThrowHelper.Check(NativeMethods.elo_rate_placements(Config(lease), (EloPlayerState*)p, players.Length, pl));
            }
        }

        /// <summary>A new player at the configured initial rating.</summary>
        /// <returns>The player's state.</returns>
        public unsafe PlayerState NewPlayer()
        {
            PlayerState player;
            using (var lease = Lease())
            {
                ThrowHelper.Check(NativeMethods.elo_player_new(Config(lease), (EloPlayerState*)&player));
            }
            return player;
        }

        /// <summary>Number of configured leagues.</summary>
        public unsafe int LeagueCount
        {
            get
            {
                int count;
                using (var lease = Lease())
                {
                    ThrowHelper.Check(NativeMethods.elo_config_league_count(Config(lease), &count));
                }
                return count;
            }
        }

        /// <summary>
        /// The name of league <paramref name="index"/> (0 = lowest) as the rules hold it, so a
        /// program never keeps its own copy of the names that could drift from the rules.
        /// Without leagues every player is in league 0, whose name is empty.
        /// </summary>
        /// <param name="index">From 0 to <see cref="LeagueCount"/> - 1 (or 0 without leagues).</param>
        /// <returns>The league's name.</returns>
        /// <exception cref="ArgumentOutOfRangeException">No league has this index (an <see cref="EloIndexOutOfRangeException"/>).</exception>
        public unsafe string LeagueName(int index)
        {
            using (var lease = Lease())
            {
                int length = 0;
                EloResult code = NativeMethods.elo_config_league_name(Config(lease), index, null, 0, &length);
                if (code != EloResult.BufferTooSmall) ThrowHelper.Check(code);
                byte[] buffer = new byte[length + 1];
                fixed (byte* p = buffer)
                {
                    ThrowHelper.Check(NativeMethods.elo_config_league_name(Config(lease), index, p, buffer.Length, &length));
                }
                return Encoding.UTF8.GetString(buffer, 0, length);
            }
        }

        /// <summary>Index of the league a rating belongs to (0 = lowest, also when no leagues are configured).</summary>
        /// <param name="rating">The rating.</param>
        /// <returns>The league index.</returns>
        public unsafe int LeagueOf(float rating)
        {
            int index;
            using (var lease = Lease())
            {
                ThrowHelper.Check(NativeMethods.elo_config_league_of(Config(lease), rating, &index));
            }
            return index;
        }

        /// <summary>
        /// Rates many independent matches in place (the rating arrays receive the new
        /// ratings), with K from the policy or one K per match. One native call, no
        /// allocation; validated as a whole first, so a bad element changes nothing.
        /// </summary>
        /// <param name="ratingsA">First players' ratings; overwritten.</param>
        /// <param name="ratingsB">Second players' ratings; overwritten.</param>
        /// <param name="scoresA">First players' scores in [0, 1].</param>
        /// <param name="k">One K per match for both players, or null for the K policy.</param>
        public unsafe void RateBatch(float[] ratingsA, float[] ratingsB, float[] scoresA, float[] k = null)
        {
            int count = Arrays.CommonLength(ratingsA, "ratingsA", ratingsB, "ratingsB", scoresA, "scoresA");
            Arrays.RequireLengthOrNull(k, "k", count);
            using (var lease = Lease())
            fixed (float* a = ratingsA, b = ratingsB, s = scoresA, perPairK = k)
            {
                ThrowHelper.Check(NativeMethods.elo_rate_batch(Config(lease), a, b, s, perPairK, count, a, b));
            }
        }

        /// <summary>Rates many independent matches into separate output arrays.</summary>
        /// <param name="ratingsA">First players' ratings.</param>
        /// <param name="ratingsB">Second players' ratings.</param>
        /// <param name="scoresA">First players' scores in [0, 1].</param>
        /// <param name="k">One K per match, or null for the K policy.</param>
        /// <param name="newRatingsA">Receives the first players' new ratings.</param>
        /// <param name="newRatingsB">Receives the second players' new ratings.</param>
        public unsafe void RateBatch(float[] ratingsA, float[] ratingsB, float[] scoresA, float[] k, float[] newRatingsA, float[] newRatingsB)
        {
            int count = Arrays.CommonLength(ratingsA, "ratingsA", ratingsB, "ratingsB", scoresA, "scoresA");
            Arrays.RequireLengthOrNull(k, "k", count);
            Arrays.RequireLength(newRatingsA, "newRatingsA", count);
            Arrays.RequireLength(newRatingsB, "newRatingsB", count);
            using (var lease = Lease())
            fixed (float* a = ratingsA, b = ratingsB, s = scoresA, perPairK = k, outA = newRatingsA, outB = newRatingsB)
            {
                ThrowHelper.Check(NativeMethods.elo_rate_batch(Config(lease), a, b, s, perPairK, count, outA, outB));
            }
        }

#if UNITY_5_3_OR_NEWER
        /// <summary>Rates many independent matches in place over <c>NativeArray</c>s (no copy, no allocation).</summary>
        /// <param name="ratingsA">First players' ratings; overwritten.</param>
        /// <param name="ratingsB">Second players' ratings; overwritten.</param>
        /// <param name="scoresA">First players' scores in [0, 1].</param>
        public unsafe void RateBatch(NativeArray<float> ratingsA, NativeArray<float> ratingsB, NativeArray<float> scoresA)
        {
            int count = Arrays.CommonLength(ratingsA.Length, "ratingsA", ratingsB.Length, "ratingsB", scoresA.Length, "scoresA");
            float* a = (float*)NativeArrayUnsafeUtility.GetUnsafePtr(ratingsA);
            float* b = (float*)NativeArrayUnsafeUtility.GetUnsafePtr(ratingsB);
            float* s = (float*)NativeArrayUnsafeUtility.GetUnsafeReadOnlyPtr(scoresA);
            using (var lease = Lease())
            {
                ThrowHelper.Check(NativeMethods.elo_rate_batch(Config(lease), a, b, s, null, count, a, b));
            }
        }
#endif

        /// <summary>Whether <see cref="Dispose"/> has been called.</summary>
        public bool IsDisposed
        {
            get { return handle.IsClosed; }
        }

        /// <summary>Releases the native configuration. Calling it again does nothing; using the rules afterwards throws <see cref="ObjectDisposedException"/>.</summary>
        /// <exception cref="InvalidOperationException">With Unity's collection checks (the Editor): a scheduled job still holds the rules' <see cref="BurstHandle"/> (complete it first); nothing is released.</exception>
        public void Dispose()
        {
            burstSafety.Release();
            handle.Dispose();
        }

        /// <summary>
        /// These rules as an unmanaged handle for Burst jobs (<see cref="Burst.EloBurst"/>). It is
        /// valid until these rules are disposed: keep them alive while jobs run.
        /// </summary>
        /// <exception cref="ObjectDisposedException">The rules were disposed.</exception>
        public Burst.EloRulesHandle BurstHandle
        {
            get
            {
                using (var lease = Lease())
                {
                    return new Burst.EloRulesHandle(lease.Pointer, burstSafety);
                }
            }
        }

        internal HandleLease Lease()
        {
            return new HandleLease(handle, "EloRules");
        }

        internal static unsafe EloConfig* Config(HandleLease lease)
        {
            return (EloConfig*)lease.Pointer;
        }
    }
}
