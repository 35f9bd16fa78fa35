using System;
using System.Collections.Generic;
using RankingElo;

namespace RankingElo.Samples
{
    /// <summary>
    /// A small population with hidden true skills that plays rated matches: the model behind
    /// the League Demo scene (no Unity types, so it runs anywhere).
    /// </summary>
    public sealed class Population : IDisposable
    {
        /// <summary>One player: a hidden skill and the state the engine rates.</summary>
        public struct Member
        {
            /// <summary>Name shown on the leaderboard.</summary>
            public string Name;

            /// <summary>Hidden true skill on the rating scale (the engine never sees it).</summary>
            public float Skill;

            /// <summary>Rating and history as the engine keeps them.</summary>
            public PlayerState State;
        }

        private readonly EloRules rules;
        private readonly Member[] members;
        private readonly Random random;
        private readonly int seed;

        /// <summary>Creates a population of <paramref name="size"/> players, all at the initial rating.</summary>
        /// <param name="size">Number of players (at least 2).</param>
        /// <param name="seed">Seed of skills and results: the same seed plays the same season.</param>
        public Population(int size, int seed)
        {
            if (size < 2) throw new ArgumentOutOfRangeException("size", size, "needs at least two players");
            this.seed = seed;
            rules = new EloRules(DemoSettings());
            members = new Member[size];
            random = new Random(seed);
            Reset();
        }

        /// <summary>Bronze, Silver, Gold and Platinum leagues with a K each; victories in Bronze earn a small bonus.</summary>
        /// <returns>The settings used by the demo.</returns>
        public static EloSettings DemoSettings()
        {
            var settings = new EloSettings { KPolicy = KPolicy.League(), InitialRating = 1200f, MinRating = 800f };
            settings.Leagues.Add(new League("Bronze", 0f, 40) { VictoryBonus = 2 });
            settings.Leagues.Add(new League("Silver", 1300f, 32));
            settings.Leagues.Add(new League("Gold", 1500f, 24));
            settings.Leagues.Add(new League("Platinum", 1700f, 16));
            return settings;
        }

        /// <summary>The players, in creation order.</summary>
        public IList<Member> Members
        {
            get { return Array.AsReadOnly(members); }
        }

        /// <summary>Matches played since the last reset.</summary>
        public int MatchesPlayed { get; private set; }

        /// <summary>League names, lowest first.</summary>
        public static readonly string[] LeagueNames = { "Bronze", "Silver", "Gold", "Platinum" };

        /// <summary>The league index of a rating.</summary>
        /// <param name="rating">The rating.</param>
        /// <returns>0 (Bronze) to 3 (Platinum).</returns>
        public int LeagueOf(float rating)
        {
            return rules.LeagueOf(rating);
        }

        /// <summary>New skills (normal, mean 1400, spread 250), everybody back to the initial rating.</summary>
        public void Reset()
        {
            var skills = new Random(seed);
            for (int i = 0; i < members.Length; i++)
            {
                members[i].Name = "Player " + (i + 1);
                members[i].Skill = 1400f + 250f * (float)Gaussian(skills);
                members[i].State = rules.NewPlayer();
            }
            MatchesPlayed = 0;
        }

        /// <summary>Plays one match between two random players; the result is drawn from their true skills.</summary>
        public void PlayMatch()
        {
            int a = random.Next(members.Length);
            int b = random.Next(members.Length - 1);
            if (b >= a) b++;
            double trueChance = 1.0 / (1.0 + Math.Pow(10.0, (members[b].Skill - members[a].Skill) / 400.0));
            MatchResult result = random.NextDouble() < trueChance ? MatchResult.Win : MatchResult.Loss;
            rules.RatePlayers(ref members[a].State, ref members[b].State, result);
            MatchesPlayed++;
        }

        /// <summary>Plays <paramref name="count"/> matches.</summary>
        /// <param name="count">How many.</param>
        public void PlayMatches(int count)
        {
            for (int i = 0; i < count; i++) PlayMatch();
        }

        /// <summary>Player indices by rating, best first.</summary>
        /// <returns>The ranking.</returns>
        public int[] Ranking()
        {
            var order = new int[members.Length];
            for (int i = 0; i < order.Length; i++) order[i] = i;
            Array.Sort(order, (x, y) => members[y].State.Rating.CompareTo(members[x].State.Rating));
            return order;
        }

        /// <summary>Releases the native rules.</summary>
        public void Dispose()
        {
            rules.Dispose();
        }

        private static double Gaussian(Random random)
        {
            double u1 = 1.0 - random.NextDouble(), u2 = random.NextDouble();
            return Math.Sqrt(-2.0 * Math.Log(u1)) * Math.Cos(2.0 * Math.PI * u2);
        }
    }
}
