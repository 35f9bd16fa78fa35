using System;
using System.Collections.Generic;
using RankingElo;

namespace RankingElo.Samples
{
    /// <summary>
    /// A small population with hidden true skills on a ladder: players queue in a
    /// <see cref="Matchmaker"/>, the pairs it forms play, and a <see cref="RatingPool"/> rates
    /// the results. The model behind the League Demo scene (no Unity types, so it also runs
    /// in the console demo).
    /// </summary>
    public sealed class Population : IDisposable
    {
        /// <summary>One player as the leaderboard shows it.</summary>
        public struct Member
        {
            /// <summary>Name shown on the leaderboard.</summary>
            public string Name;

            /// <summary>Hidden true skill on the rating scale (the engine never sees it).</summary>
            public float Skill;

            /// <summary>Rating and history as the pool keeps them.</summary>
            public PlayerState State;
        }

        /// <summary>League names, lowest first.</summary>
        public static readonly string[] LeagueNames = { "Bronze", "Silver", "Gold", "Platinum" };

        private readonly int size;
        private readonly int seed;
        private readonly float[] skills;
        private readonly ulong[] pairA;
        private readonly ulong[] pairB;
        private RatingPool pool;
        private Matchmaker queue;
        private int idleLimit;
        private Random random;
        private double clock;
        private LeagueChange[] events;

        /// <summary>Creates a population of <paramref name="size"/> players, all at the initial rating.</summary>
        /// <param name="size">Number of players (at least 2).</param>
        /// <param name="seed">Seed of skills, results and matchmaking: the same seed plays the same season.</param>
        public Population(int size, int seed)
        {
            if (size < 2) throw new ArgumentOutOfRangeException("size", size, "needs at least two players");
            this.size = size;
            this.seed = seed;
            skills = new float[size];
            pairA = new ulong[size / 2];
            pairB = new ulong[size / 2];
            events = new LeagueChange[size];
            Reset();
        }

        /// <summary>
        /// Bronze, Silver, Gold and Platinum leagues with a K each; victories in Bronze earn a
        /// small bonus. Demotion waits 40 points below a league's bound and for 3 games after a
        /// promotion; a season's end keeps half of each rating's distance to 1200 (Platinum a
        /// quarter).
        /// </summary>
        /// <returns>The settings used by the demo.</returns>
        public static EloSettings DemoSettings()
        {
            var settings = new EloSettings { KPolicy = KPolicy.League(), InitialRating = 1200f, MinRating = 800f, DemotionMargin = 40, ProtectedGames = 3 };
            settings.SeasonReset.Keep = 0.5;
            settings.Leagues.Add(new League(LeagueNames[0], 0f, 40) { VictoryBonus = 2 });
            settings.Leagues.Add(new League(LeagueNames[1], 1300f, 32));
            settings.Leagues.Add(new League(LeagueNames[2], 1500f, 24));
            settings.Leagues.Add(new League(LeagueNames[3], 1700f, 16) { SeasonKeep = 0.25 });
            return settings;
        }

        /// <summary>Matches played since the last reset.</summary>
        public int MatchesPlayed { get; private set; }

        /// <summary>Seasons ended since the last reset.</summary>
        public int SeasonsEnded { get; private set; }

        /// <summary>The latest promotion or demotion as a sentence ("Player 7 promoted to Gold"), or null.</summary>
        public string LastLeagueChange { get; private set; }

        /// <summary>
        /// Ends the season: the records (league held, games, wins) come back before the soft
        /// reset pulls every rating halfway to the initial rating.
        /// </summary>
        /// <returns>Each player's season, by index.</returns>
        public SeasonRecord[] EndSeason()
        {
            SeasonRecord[] records = pool.EndSeason();
            SeasonsEnded++;
            LastLeagueChange = null;
            // Waiting players re-join with their reset ratings.
            for (int i = 0; i < size; i++)
            {
                if (queue.Leave((ulong)i)) queue.Join((ulong)i, pool[i].Rating, clock);
            }
            return records;
        }

        /// <summary>The players, in creation order, with their current state.</summary>
        public IList<Member> Members
        {
            get
            {
                var states = new PlayerState[size];
                pool.GetPlayers(states);
                var members = new Member[size];
                for (int i = 0; i < size; i++)
                {
                    members[i] = new Member { Name = "Player " + (i + 1), Skill = skills[i], State = states[i] };
                }
                return members;
            }
        }

        /// <summary>Number of players.</summary>
        public int Size
        {
            get { return size; }
        }

        /// <summary>Player <paramref name="index"/>'s hidden skill.</summary>
        /// <param name="index">The player.</param>
        /// <returns>The skill.</returns>
        public float SkillOf(int index)
        {
            return skills[index];
        }

        /// <summary>
        /// Fills the caller's buffers with the current ratings, leagues, ranking (best first)
        /// and league counts without allocating, for views that redraw every frame.
        /// </summary>
        /// <param name="ratings">Receives every player's rating (length <see cref="Size"/>).</param>
        /// <param name="leagues">Receives every player's league (length <see cref="Size"/>).</param>
        /// <param name="ranking">Receives the best players' indices, best first.</param>
        /// <param name="leagueCounts">Receives the players per league (length 4).</param>
        /// <returns>How many indices <paramref name="ranking"/> received.</returns>
        public int Fill(float[] ratings, int[] leagues, int[] ranking, int[] leagueCounts)
        {
            pool.GetRatings(ratings);
            pool.GetLeagues(leagues);
            pool.LeagueCounts(new Span<int>(leagueCounts));
            return pool.Top(new Span<int>(ranking));
        }

        /// <summary>The league index of player <paramref name="index"/>.</summary>
        /// <param name="index">The player.</param>
        /// <returns>0 (Bronze) to 3 (Platinum).</returns>
        public int LeagueOfPlayer(int index)
        {
            return pool.LeagueOf(index);
        }

        /// <summary>Players per league, Bronze first.</summary>
        /// <returns>The counts.</returns>
        public int[] LeagueCounts()
        {
            return pool.LeagueCounts();
        }

        /// <summary>New skills (normal, mean 1400, spread 250), everybody back to the initial rating and in the queue.</summary>
        public void Reset()
        {
            Dispose();
            var skillRandom = new Random(seed);
            for (int i = 0; i < size; i++) skills[i] = 1400f + 250f * (float)Gaussian(skillRandom);
            using (var rules = new EloRules(DemoSettings()))
            {
                pool = new RatingPool(rules);
            }
            pool.AddPlayers(size);
            var settings = MatchmakerSettings.Default;
            settings.Seed = (ulong)seed;
            queue = new Matchmaker(settings);
            // Once every waiting player's window is at its widest, waiting longer forms no
            // new pair (ratings do not change while players wait).
            double widening = settings.GrowthPerSecond > 0 ? (settings.MaxDistance - settings.InitialDistance) / settings.GrowthPerSecond : 0;
            idleLimit = (int)Math.Min(Math.Ceiling(widening), 3600.0) + 1;
            random = new Random(seed + 1);
            clock = 0.0;
            MatchesPlayed = 0;
            SeasonsEnded = 0;
            LastLeagueChange = null;
            for (int i = 0; i < size; i++) queue.Join((ulong)i, pool[i].Rating, clock);
        }

        /// <summary>Plays one match: the matchmaker forms a pair, the result is drawn from the true skills.</summary>
        /// <returns>Whether a match was played.</returns>
        public bool PlayMatch()
        {
            return PlayMatches(1) == 1;
        }

        /// <summary>
        /// Plays up to <paramref name="count"/> matches, ticking the matchmaker one simulated
        /// second at a time. Stops early when no pair can be formed any more (every waiting
        /// player's window is at its widest and nobody is in reach, for example two players
        /// whose ratings drifted apart), so a caller's frame never hangs.
        /// </summary>
        /// <param name="count">How many.</param>
        /// <returns>The number of matches played (fewer than asked when nobody can meet).</returns>
        public int PlayMatches(int count)
        {
            int played = 0, idle = 0;
            while (played < count && idle <= idleLimit)
            {
                int pairs = queue.Tick(clock, pairA, pairB, Math.Min(count - played, pairA.Length));
                if (pairs > 0) Play(pairs);
                played += pairs;
                idle = pairs > 0 ? 0 : idle + 1;
                clock += 1.0;
            }
            return played;
        }

        private void Play(int pairs)
        {
            var a = new int[pairs];
            var b = new int[pairs];
            var scores = new float[pairs];
            for (int i = 0; i < pairs; i++)
            {
                a[i] = (int)pairA[i];
                b[i] = (int)pairB[i];
                double trueChance = 1.0 / (1.0 + Math.Pow(10.0, (skills[b[i]] - skills[a[i]]) / 400.0));
                scores[i] = random.NextDouble() < trueChance ? 1f : 0f;
            }
            if (events.Length < 2 * pairs) events = new LeagueChange[2 * pairs];
            int changes = pool.Apply(a, b, scores, events);
            if (changes > 0)
            {
                LeagueChange last = events[Math.Min(changes, events.Length) - 1];
                LastLeagueChange = "Player " + (last.Player + 1) + (last.IsPromotion ? " promoted to " : " demoted to ") + LeagueNames[last.ToLeague];
            }
            MatchesPlayed += pairs;
            // The players go back into the queue with their new ratings.
            for (int i = 0; i < pairs; i++)
            {
                queue.Join(pairA[i], pool[a[i]].Rating, clock);
                queue.Join(pairB[i], pool[b[i]].Rating, clock);
            }
        }

        /// <summary>Player indices by rating, best first.</summary>
        /// <returns>The ranking.</returns>
        public int[] Ranking()
        {
            return pool.Top(size);
        }

        /// <summary>Releases the native pool and queue.</summary>
        public void Dispose()
        {
            if (pool != null) pool.Dispose();
            if (queue != null) queue.Dispose();
        }

        private static double Gaussian(Random random)
        {
            double u1 = 1.0 - random.NextDouble(), u2 = random.NextDouble();
            return Math.Sqrt(-2.0 * Math.Log(u1)) * Math.Cos(2.0 * Math.PI * u2);
        }
    }
}
