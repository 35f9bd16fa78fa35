using System;

namespace RankingElo
{
    /// <summary>
    /// A quick, seeded season under a set of rules, for previews (the rules asset's Inspector
    /// plots it): players with hidden skills (normal, mean 1500, spread 300) join a
    /// <see cref="Matchmaker"/>, the pairs it forms play with results drawn from the skills
    /// (logistic, c = 400), and a <see cref="RatingPool"/> rates them. The same settings, sizes
    /// and seed give the same result.
    /// </summary>
    public static class RulesPreview
    {
        /// <summary>What a preview run ends with.</summary>
        public sealed class Result
        {
            /// <summary>Each player's hidden skill.</summary>
            public float[] Skills;

            /// <summary>Each player's final rating.</summary>
            public float[] Ratings;

            /// <summary>Each player's final league (0 = lowest).</summary>
            public int[] Leagues;

            /// <summary>Players per league, lowest first.</summary>
            public int[] LeagueCounts;

            /// <summary>League names (or "All players" without leagues).</summary>
            public string[] LeagueNames;

            /// <summary>Spearman rank correlation of final rating with skill (1 = perfect order).</summary>
            public float Spearman;

            /// <summary>Matches played.</summary>
            public int Matches;

            /// <summary>Smallest skill.</summary>
            public float MinSkill;

            /// <summary>Largest skill.</summary>
            public float MaxSkill;

            /// <summary>Smallest rating.</summary>
            public float MinRating;

            /// <summary>Largest rating.</summary>
            public float MaxRating;
        }

        /// <summary>Plays a preview season.</summary>
        /// <param name="settings">The rules.</param>
        /// <param name="players">Number of players (at least 2).</param>
        /// <param name="matches">Matches to play (fewer if nobody can meet any more).</param>
        /// <param name="seed">Seed of skills, results and matchmaking.</param>
        /// <returns>The final state.</returns>
        /// <exception cref="EloArgumentException">The settings are invalid.</exception>
        public static Result Run(EloSettings settings, int players, int matches, int seed)
        {
            if (settings == null) throw new ArgumentNullException("settings");
            if (players < 2) throw new ArgumentOutOfRangeException("players", players, "needs at least two players");
            using (var rules = new EloRules(settings))
            {
                return Run(rules, LeagueNamesOf(settings), players, matches, seed);
            }
        }

        /// <summary>The names a preview shows for the leagues of <paramref name="settings"/>.</summary>
        internal static string[] LeagueNamesOf(EloSettings settings)
        {
            var names = new string[settings.Leagues.Count];
            for (int i = 0; i < names.Length; i++) names[i] = settings.Leagues[i].Name;
            return names;
        }

        /// <summary>A preview under <paramref name="rules"/> (thread-safe: it reads no settings object).</summary>
        internal static Result Run(EloRules rules, string[] leagueNames, int players, int matches, int seed)
        {
            if (players < 2) throw new ArgumentOutOfRangeException("players", players, "needs at least two players");
            var random = new Random(seed);
            var result = new Result { Skills = new float[players], Ratings = new float[players], Leagues = new int[players] };
            for (int i = 0; i < players; i++)
            {
                double u1 = 1.0 - random.NextDouble(), u2 = random.NextDouble();
                result.Skills[i] = (float)(1500.0 + 300.0 * Math.Sqrt(-2.0 * Math.Log(u1)) * Math.Cos(2.0 * Math.PI * u2));
            }
            using (var pool = new RatingPool(rules))
            using (var queue = new Matchmaker(new MatchmakerSettings { InitialDistance = 100, GrowthPerSecond = 25, MaxDistance = 800, Candidates = 4, Seed = (ulong)seed }))
            {
                pool.AddPlayers(players);
                for (int i = 0; i < players; i++) queue.Join((ulong)i, pool[i].Rating, 0);
                var pairA = new ulong[players / 2];
                var pairB = new ulong[players / 2];
                var a = new int[1];
                var b = new int[1];
                var score = new float[1];
                double clock = 0;
                int idle = 0;
                while (result.Matches < matches && idle < 64)
                {
                    clock += 1;
                    int pairs = queue.Tick(clock, pairA, pairB, matches - result.Matches);
                    idle = pairs == 0 ? idle + 1 : 0;
                    for (int p = 0; p < pairs; p++)
                    {
                        a[0] = (int)pairA[p];
                        b[0] = (int)pairB[p];
                        double chance = 1.0 / (1.0 + Math.Pow(10.0, (result.Skills[b[0]] - result.Skills[a[0]]) / 400.0));
                        score[0] = random.NextDouble() < chance ? 1f : 0f;
                        pool.Apply(a, b, score);
                        queue.Join(pairA[p], pool[a[0]].Rating, clock);
                        queue.Join(pairB[p], pool[b[0]].Rating, clock);
                    }
                    result.Matches += pairs;
                }
                pool.GetRatings(result.Ratings);
                pool.GetLeagues(result.Leagues);
                result.LeagueCounts = pool.LeagueCounts();
            }
            result.LeagueNames = new string[result.LeagueCounts.Length];
            for (int i = 0; i < result.LeagueNames.Length; i++)
            {
                result.LeagueNames[i] = leagueNames.Length > i ? leagueNames[i] : "All players";
            }
            result.MinSkill = Min(result.Skills);
            result.MaxSkill = Max(result.Skills);
            result.MinRating = Min(result.Ratings);
            result.MaxRating = Max(result.Ratings);
            result.Spearman = Spearman(result.Skills, result.Ratings);
            return result;
        }

        private static float Min(float[] values)
        {
            float min = float.PositiveInfinity;
            foreach (float v in values) min = Math.Min(min, v);
            return min;
        }

        private static float Max(float[] values)
        {
            float max = float.NegativeInfinity;
            foreach (float v in values) max = Math.Max(max, v);
            return max;
        }

        private static float[] Ranks(float[] values)
        {
            var order = new int[values.Length];
            for (int i = 0; i < order.Length; i++) order[i] = i;
            Array.Sort(order, (x, y) => values[x] != values[y] ? values[x].CompareTo(values[y]) : x.CompareTo(y));
            var ranks = new float[values.Length];
            for (int r = 0; r < order.Length; r++) ranks[order[r]] = r;
            return ranks;
        }

        private static float Spearman(float[] x, float[] y)
        {
            float[] rx = Ranks(x), ry = Ranks(y);
            double n = x.Length, sum = 0;
            for (int i = 0; i < x.Length; i++) sum += (rx[i] - ry[i]) * (double)(rx[i] - ry[i]);
            return (float)(1.0 - 6.0 * sum / (n * (n * n - 1.0)));
        }
    }

    /// <summary>
    /// Plays previews off the caller's thread for the rules asset's Inspector, which asks on
    /// every GUI pass: <see cref="Request"/> answers at once with the latest result ready and
    /// starts a run only when the settings changed since that result and no run is under way,
    /// so each change is played once (edits made during a run are played together after it)
    /// and the GUI pass never plays a season itself.
    /// </summary>
    internal sealed class RulesPreviewRunner
    {
        private readonly int players;
        private readonly int matches;
        private readonly int seed;
        private readonly object gate = new object();
        private RulesPreview.Result ready;
        private string readyFor;
        private System.Threading.Tasks.Task running;
        private int runs;

        private readonly System.Threading.ManualResetEventSlim hold;

        /// <summary>A runner of previews of <paramref name="players"/> players and <paramref name="matches"/> matches from <paramref name="seed"/>.</summary>
        /// <param name="players">Players per preview.</param>
        /// <param name="matches">Matches per preview.</param>
        /// <param name="seed">The seed.</param>
        /// <param name="hold">Null, or an event each run waits for before it plays (tests hold runs with it).</param>
        internal RulesPreviewRunner(int players, int matches, int seed, System.Threading.ManualResetEventSlim hold = null)
        {
            this.players = players;
            this.matches = matches;
            this.seed = seed;
            this.hold = hold;
        }

        /// <summary>How many runs were started.</summary>
        internal int Runs
        {
            get { lock (gate) return runs; }
        }

        /// <summary>Whether a run is under way (the Inspector repaints until it is done).</summary>
        internal bool IsRunning
        {
            get { lock (gate) return running != null; }
        }

        /// <summary>
        /// The latest preview ready (null before the first), starting a run for
        /// <paramref name="settings"/> when that preview is of other settings and none runs.
        /// </summary>
        /// <param name="settings">The settings now (valid: the Inspector checks them first).</param>
        /// <param name="current">Whether the preview returned is of these settings.</param>
        /// <returns>The preview, or null while the first runs (or if these settings' run failed).</returns>
        internal RulesPreview.Result Request(EloSettings settings, out bool current)
        {
            string json = settings.ToJson();
            lock (gate)
            {
                if (readyFor != json && running == null)
                {
                    Start(new EloRules(settings), RulesPreview.LeagueNamesOf(settings), json);
                }
                current = readyFor == json;
                return ready;
            }
        }

        /// <summary>Waits for the run under way, if any (tests).</summary>
        internal void Wait()
        {
            System.Threading.Tasks.Task task;
            lock (gate) task = running;
            if (task != null) task.Wait();
        }

        private void Start(EloRules rules, string[] leagueNames, string json)
        {
            runs++;
            running = System.Threading.Tasks.Task.Run(() =>
            {
                RulesPreview.Result result = null;
                try
                {
                    if (hold != null) hold.Wait();
                    result = RulesPreview.Run(rules, leagueNames, players, matches, seed);
                }
                catch (Exception)
                {
                    // Valid rules cannot fail here; should they, these settings show no
                    // preview (null) instead of a run restarted on every GUI pass.
                }
                finally
                {
                    rules.Dispose();
                }
                lock (gate)
                {
                    ready = result;
                    readyFor = json;
                    running = null;
                }
            });
        }
    }
}
