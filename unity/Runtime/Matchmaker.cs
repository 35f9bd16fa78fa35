using System;
using System.Runtime.CompilerServices;
using RankingElo.Native;

namespace RankingElo
{
    /// <summary>Settings of a <see cref="Matchmaker"/> (serializable: store them in an asset or with <c>JsonUtility</c>).</summary>
    [Serializable]
    public struct MatchmakerSettings
    {
        /// <summary>Rating distance accepted right after joining.</summary>
        public double InitialDistance;

        /// <summary>How much the distance widens per second of waiting.</summary>
        public double GrowthPerSecond;

        /// <summary>The widest distance.</summary>
        public double MaxDistance;

        /// <summary>The random choice is among at most this many nearest eligible opponents (1 = always the nearest).</summary>
        public int Candidates;

        /// <summary>Seed of the random choice: the same seed and calls give the same pairs.</summary>
        public ulong Seed;

        /// <summary>100 points at first, +10 per second, at most 400, a choice among the 4 nearest.</summary>
        public static MatchmakerSettings Default
        {
            get { return new MatchmakerSettings { InitialDistance = 100, GrowthPerSecond = 10, MaxDistance = 400, Candidates = 4 }; }
        }
    }

    /// <summary>
    /// A matchmaking queue: players join with their rating; each <see cref="Tick(double, ulong[], ulong[])"/> pairs
    /// players whose rating difference is within both players' distance, which widens with
    /// waiting time, picking at random (seeded) among the nearest eligible opponents.
    /// Safe to use from several threads.
    /// </summary>
    public sealed class Matchmaker : IDisposable
    {
        private readonly EloMatchmakerHandle handle;

        /// <summary>An empty queue.</summary>
        /// <param name="settings">Distances, growth, candidates and seed.</param>
        /// <exception cref="EloArgumentException">A setting is out of range (the message names it).</exception>
        /// <exception cref="DllNotFoundException">The native library is missing or cannot load here (the message names the binary and the platform; a later call tries again).</exception>
        public Matchmaker(MatchmakerSettings settings)
        {
            PluginBinary.EnsureLoaded();
            handle = New(settings);
        }

        // Compiled only once the library loads (see EloRules.NewDefault).
        [MethodImpl(MethodImplOptions.NoInlining)]
        private static unsafe EloMatchmakerHandle New(MatchmakerSettings settings)
        {
            EloMatchmaker* queue = null;
            ThrowHelper.Check(NativeMethods.elo_matchmaker_new(settings.InitialDistance, settings.GrowthPerSecond, settings.MaxDistance, settings.Candidates, settings.Seed, &queue));
            return EloMatchmakerHandle.Wrap(queue);
        }

        /// <summary>Number of waiting players.</summary>
        public unsafe int Count
        {
            get
            {
                int count;
                using (var lease = Lease())
                {
                    ThrowHelper.Check(NativeMethods.elo_matchmaker_len(Queue(lease), &count));
                }
                return count;
            }
        }

        /// <summary>Puts a player in the queue.</summary>
        /// <param name="id">The player's id (unique among waiting players).</param>
        /// <param name="rating">The player's rating.</param>
        /// <param name="now">The current time in seconds (any epoch; the same clock as <see cref="Tick(double, ulong[], ulong[])"/>).</param>
        /// <exception cref="EloArgumentException">The id is already waiting (<see cref="EloError.DuplicateId"/>) or a value is not finite.</exception>
        public void Join(ulong id, float rating, double now)
        {
            using (var lease = Lease())
            {
                unsafe
                {
                    ThrowHelper.Check(NativeMethods.elo_matchmaker_join(Queue(lease), id, rating, now));
                }
            }
        }

        /// <summary>
        /// Puts a party in the queue as one ticket: its players play on one side of a team match
        /// (<see cref="TickTeamMatches"/>); pairs and free-for-alls leave it waiting.
        /// </summary>
        /// <param name="id">The ticket's id (unique among waiting tickets).</param>
        /// <param name="rating">The rating standing for the party (its players' mean rating, say).</param>
        /// <param name="size">Players in the party, 1 to 64.</param>
        /// <param name="now">The current time in seconds (the same clock as the ticks).</param>
        /// <exception cref="EloArgumentException">The id is already waiting, the size is outside 1 to 64, or a value is not finite.</exception>
        public void JoinParty(ulong id, float rating, int size, double now)
        {
            using (var lease = Lease())
            {
                unsafe
                {
                    ThrowHelper.Check(NativeMethods.elo_matchmaker_join_party(Queue(lease), id, rating, size, now));
                }
            }
        }

        /// <summary>Removes a player from the queue.</summary>
        /// <param name="id">The player's id.</param>
        /// <returns>Whether the player was waiting.</returns>
        public unsafe bool Leave(ulong id)
        {
            byte wasWaiting;
            using (var lease = Lease())
            {
                ThrowHelper.Check(NativeMethods.elo_matchmaker_leave(Queue(lease), id, &wasWaiting));
            }
            return wasWaiting != 0;
        }

        /// <summary>
        /// Forms pairs at time <paramref name="now"/> (at most as many as the arrays hold) and
        /// removes them from the queue. Longest-waiting players are served first; no player is
        /// in two pairs.
        /// </summary>
        /// <param name="now">The current time in seconds.</param>
        /// <param name="playerA">Receives the first id of each pair (the longer-waiting player).</param>
        /// <param name="playerB">Receives the second id of each pair.</param>
        /// <returns>The number of pairs written.</returns>
        public int Tick(double now, ulong[] playerA, ulong[] playerB)
        {
            return Tick(now, playerA, playerB, int.MaxValue);
        }

        /// <summary>
        /// Forms at most <paramref name="maxPairs"/> pairs at time <paramref name="now"/> (and no
        /// more than the arrays hold) and removes them from the queue.
        /// </summary>
        /// <param name="now">The current time in seconds.</param>
        /// <param name="playerA">Receives the first id of each pair (the longer-waiting player).</param>
        /// <param name="playerB">Receives the second id of each pair.</param>
        /// <param name="maxPairs">The most pairs to form.</param>
        /// <returns>The number of pairs written.</returns>
        public unsafe int Tick(double now, ulong[] playerA, ulong[] playerB, int maxPairs)
        {
            if (playerA == null) throw new ArgumentNullException("playerA");
            if (playerB == null) throw new ArgumentNullException("playerB");
            if (maxPairs < 0) throw new ArgumentOutOfRangeException("maxPairs", maxPairs, "must not be negative");
            int capacity = Math.Min(Math.Min(playerA.Length, playerB.Length), maxPairs);
            int pairs;
            using (var lease = Lease())
            fixed (ulong* a = playerA, b = playerB)
            {
                ThrowHelper.Check(NativeMethods.elo_matchmaker_tick(Queue(lease), now, a, b, capacity, &pairs));
            }
            return pairs;
        }

        /// <summary>
        /// <see cref="Tick(double, ulong[], ulong[], int)"/> into spans (at most the shorter
        /// one's length in pairs); allocates nothing.
        /// </summary>
        /// <param name="now">The current time in seconds.</param>
        /// <param name="playerA">Receives the first id of each pair.</param>
        /// <param name="playerB">Receives the second id of each pair; must not overlap <paramref name="playerA"/>.</param>
        /// <returns>The number of pairs written.</returns>
        public unsafe int Tick(double now, Span<ulong> playerA, Span<ulong> playerB)
        {
            int capacity = Math.Min(playerA.Length, playerB.Length);
            int pairs;
            using (var lease = Lease())
            fixed (ulong* a = &playerA.GetPinnableReference(), b = &playerB.GetPinnableReference())
            {
                ThrowHelper.Check(NativeMethods.elo_matchmaker_tick(Queue(lease), now, capacity == 0 ? null : a, capacity == 0 ? null : b, capacity, &pairs));
            }
            return pairs;
        }

        /// <summary>
        /// Forms matches of two balanced teams of <paramref name="teamSize"/> players (1 to 64)
        /// and removes their players from the queue: match <c>m</c>'s ids go to
        /// <c>players[m * 2 * teamSize ..]</c>, team A's then team B's, as many matches as
        /// <paramref name="players"/> holds. Players meet within each other's widening windows
        /// as for pairs; the split minimises the difference of the teams' mean ratings.
        /// Allocates nothing.
        /// </summary>
        /// <param name="now">The current time in seconds.</param>
        /// <param name="teamSize">Players per team.</param>
        /// <param name="players">Receives the matches' ids.</param>
        /// <returns>The number of matches written.</returns>
        public unsafe int TickTeams(double now, int teamSize, Span<ulong> players)
        {
            if (teamSize < 1 || teamSize > 64) throw new ArgumentOutOfRangeException("teamSize", teamSize, "must be from 1 to 64");
            int capacity = players.Length / (2 * teamSize);
            int matches;
            using (var lease = Lease())
            fixed (ulong* p = &players.GetPinnableReference())
            {
                ThrowHelper.Check(NativeMethods.elo_matchmaker_tick_teams(Queue(lease), now, teamSize, capacity == 0 ? null : p, capacity, &matches));
            }
            return matches;
        }

        /// <summary>
        /// Forms matches of two teams of <paramref name="teamSize"/> players (1 to 64), each party
        /// whole on one side, and removes their tickets from the queue: match <c>m</c>'s ticket ids
        /// go to <c>tickets[m * 2 * teamSize ..]</c>, team A's <c>teamA[m]</c> tickets then team
        /// B's <c>teamB[m]</c>; as many matches as the spans hold. Allocates nothing.
        /// </summary>
        /// <param name="now">The current time in seconds.</param>
        /// <param name="teamSize">Players per team.</param>
        /// <param name="tickets">Receives the matches' ticket ids (<c>2 * teamSize</c> slots per match).</param>
        /// <param name="teamA">Receives how many tickets each match's team A has.</param>
        /// <param name="teamB">Receives how many tickets each match's team B has.</param>
        /// <returns>The number of matches written.</returns>
        public unsafe int TickTeamMatches(double now, int teamSize, Span<ulong> tickets, Span<int> teamA, Span<int> teamB)
        {
            if (teamSize < 1 || teamSize > 64) throw new ArgumentOutOfRangeException("teamSize", teamSize, "must be from 1 to 64");
            int capacity = Math.Min(tickets.Length / (2 * teamSize), Math.Min(teamA.Length, teamB.Length));
            int matches;
            using (var lease = Lease())
            fixed (ulong* t = &tickets.GetPinnableReference())
            fixed (int* a = &teamA.GetPinnableReference(), b = &teamB.GetPinnableReference())
            {
                bool none = capacity == 0;
                ThrowHelper.Check(NativeMethods.elo_matchmaker_tick_team_matches(Queue(lease), now, teamSize, none ? null : t, none ? null : a, none ? null : b, capacity, &matches));
            }
            return matches;
        }

        /// <summary>
        /// Forms free-for-all matches of <paramref name="entrants"/> players (2 to 256) and removes
        /// them from the queue: match <c>m</c>'s ids go to <c>players[m * entrants ..]</c>, the
        /// longest-waiting player first; as many matches as <paramref name="players"/> holds.
        /// Each entrant and the longest-waiting one are within each other's widening windows;
        /// parties wait. Allocates nothing.
        /// </summary>
        /// <param name="now">The current time in seconds.</param>
        /// <param name="entrants">Players per match.</param>
        /// <param name="players">Receives the matches' ids.</param>
        /// <returns>The number of matches written.</returns>
        public unsafe int TickFreeForAll(double now, int entrants, Span<ulong> players)
        {
            if (entrants < 2 || entrants > 256) throw new ArgumentOutOfRangeException("entrants", entrants, "must be from 2 to 256");
            int capacity = players.Length / entrants;
            int matches;
            using (var lease = Lease())
            fixed (ulong* p = &players.GetPinnableReference())
            {
                ThrowHelper.Check(NativeMethods.elo_matchmaker_tick_free_for_all(Queue(lease), now, entrants, capacity == 0 ? null : p, capacity, &matches));
            }
            return matches;
        }

        /// <summary>Whether <see cref="Dispose"/> has been called.</summary>
        public bool IsDisposed
        {
            get { return handle.IsClosed; }
        }

        /// <summary>Releases the native queue; calling it again does nothing.</summary>
        public void Dispose()
        {
            handle.Dispose();
        }

        private HandleLease Lease()
        {
            return new HandleLease(handle, "Matchmaker");
        }

        private static unsafe EloMatchmaker* Queue(HandleLease lease)
        {
            return (EloMatchmaker*)lease.Pointer;
        }
    }
}
