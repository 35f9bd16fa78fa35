// NUnit tests of RankingElo.Ladder.LadderClient on Mono against a real `elo-ladder serve`
// that `cargo xtask test` starts (on a fresh SQLite database) and names in
// ELO_LADDER_URL with an admin, a report and a read key. They fail, never skip, without it.
using System;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Net.Http;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using NUnit.Framework;
using RankingElo.Ladder;

namespace RankingElo.Tests.Mono
{
    /// <summary>Tests of <see cref="LadderClient"/> against the real server.</summary>
    public class LadderClientTests
    {
        private static string Setting(string name)
        {
            string value = Environment.GetEnvironmentVariable(name);
            if (string.IsNullOrEmpty(value))
            {
                Assert.Fail(name + " is not set: these tests run against the elo-ladder that `cargo xtask test` starts");
            }
            return value;
        }

        /// <summary>Creates a ladder with the admin key (the client itself only reports and reads).</summary>
        private static string NewLadder(string rules)
        {
            return NewLadder(rules, Setting("ELO_LADDER_URL"), Setting("ELO_LADDER_ADMIN_KEY"));
        }

        private static string NewLadder(string rules, string url, string adminKey)
        {
            string name = "cs-" + Guid.NewGuid().ToString("N").Substring(0, 12);
            using (var http = new HttpClient())
            using (var request = new HttpRequestMessage(HttpMethod.Put, url + "/v1/ladders/" + name))
            {
                request.Headers.TryAddWithoutValidation("Authorization", "Bearer " + adminKey);
                request.Content = new StringContent(rules, Encoding.UTF8, "application/json");
                var response = http.SendAsync(request).GetAwaiter().GetResult();
                Assert.That((int)response.StatusCode, Is.EqualTo(201), response.Content.ReadAsStringAsync().GetAwaiter().GetResult());
            }
            return name;
        }

        private static LadderClient Client(string key)
        {
            return new LadderClient(Setting("ELO_LADDER_URL"), Setting(key));
        }

        private static uint Bits(float value)
        {
            return BitConverter.ToUInt32(BitConverter.GetBytes(value), 0);
        }

        /// <summary>
        /// The README's "+12 if you win": the preview computed on the client with
        /// <see cref="EloRules"/> from the players' stored states is exactly, bit for bit,
        /// what the server stores when the win is reported.
        /// </summary>
        [Test]
        public void PreviewEqualsTheServersResultBitForBit()
        {
            string rulesJson = "{\"k_policy\":{\"policy\":\"fide\"},\"streak_alpha\":0.25,\"expected_score\":{\"model\":\"normal\"}}";
            string ladder = NewLadder(rulesJson);
            using (var server = Client("ELO_LADDER_REPORT_KEY"))
            using (var game = Client("ELO_LADDER_READ_KEY"))
            {
                // Some history first, so the preview starts from uneven states.
                server.ReportMatchAsync(ladder, "warm-1", "alice", "bob", 0.0).GetAwaiter().GetResult();
                server.ReportMatchAsync(ladder, "warm-2", "alice", "carol", 1.0).GetAwaiter().GetResult();
                server.ReportMatchAsync(ladder, "warm-3", "bob", "carol", 0.5).GetAwaiter().GetResult();

                // --- as in the README ---
                LadderPlayer me = game.GetPlayerAsync(ladder, "alice").GetAwaiter().GetResult();
                LadderPlayer them = game.GetPlayerAsync(ladder, "bob").GetAwaiter().GetResult();
                PlayerState ifIWin, theyLose;
                float gain;
                using (var rules = EloRules.FromJson(rulesJson))
                {
                    PlayerState mine = me != null ? me.State : rules.NewPlayer();
                    PlayerState theirs = them != null ? them.State : rules.NewPlayer();
                    ifIWin = mine;
                    theyLose = theirs;
                    rules.RatePlayers(ref ifIWin, ref theyLose, MatchResult.Win);
                    gain = ifIWin.Rating - mine.Rating; // "+12 if you win"
                }
                // ---

                MatchReport report = server.ReportMatchAsync(ladder, "final", "alice", "bob", 1.0).GetAwaiter().GetResult();
                Assert.That(gain, Is.GreaterThan(0f));
                Assert.That(Bits(report.Players[0].State.Rating), Is.EqualTo(Bits(ifIWin.Rating)), "alice: server " + report.Players[0].State.Rating.ToString("R") + ", preview " + ifIWin.Rating.ToString("R"));
                Assert.That(Bits(report.Players[1].State.Rating), Is.EqualTo(Bits(theyLose.Rating)), "bob");
                Assert.That(report.Players[0].State.WinStreak, Is.EqualTo(ifIWin.WinStreak));
                Assert.That(report.Players[0].State.GamesPlayed, Is.EqualTo(ifIWin.GamesPlayed));
                Assert.That(Bits(game.GetPlayerAsync(ladder, "alice").GetAwaiter().GetResult().State.Rating), Is.EqualTo(Bits(ifIWin.Rating)));
            }
        }

        /// <summary>
        /// A player who has not played yet reads as null (the README's preview then starts
        /// from the rules' new-player state), and that preview is the server's result bit for
        /// bit: the server gives a newcomer the same state (placed in its league).
        /// </summary>
        [Test]
        public void ANewcomersPreviewStartsFromTheRulesNewPlayer()
        {
            string rulesJson = "{\"k_policy\":{\"policy\":\"fide\"},\"initial_rating\":1450,\"leagues\":[{\"name\":\"Bronze\",\"min_rating\":0},{\"name\":\"Silver\",\"min_rating\":1400},{\"name\":\"Gold\",\"min_rating\":1600}]}";
            string ladder = NewLadder(rulesJson);
            using (var server = Client("ELO_LADDER_REPORT_KEY"))
            using (var game = Client("ELO_LADDER_READ_KEY"))
            using (var rules = EloRules.FromJson(rulesJson))
            {
                server.ReportMatchAsync(ladder, "warm", "veteran", "other", 1.0).GetAwaiter().GetResult();
                LadderPlayer me = game.GetPlayerAsync(ladder, "newcomer").GetAwaiter().GetResult();
                LadderPlayer them = game.GetPlayerAsync(ladder, "veteran").GetAwaiter().GetResult();
                Assert.That(me, Is.Null, "a player who has not played yet");
                PlayerState mine = me != null ? me.State : rules.NewPlayer();
                PlayerState ifIWin = mine, theyLose = them.State;
                rules.RatePlayers(ref ifIWin, ref theyLose, MatchResult.Win);
                MatchReport report = server.ReportMatchAsync(ladder, "first", "newcomer", "veteran", 1.0).GetAwaiter().GetResult();
                Assert.That(Bits(report.Players[0].State.Rating), Is.EqualTo(Bits(ifIWin.Rating)), "newcomer: server " + report.Players[0].State.Rating.ToString("R") + ", preview " + ifIWin.Rating.ToString("R"));
                Assert.That(Bits(report.Players[1].State.Rating), Is.EqualTo(Bits(theyLose.Rating)), "veteran");
                Assert.That(report.Players[0].State.League, Is.EqualTo(ifIWin.League), "league");
                Assert.That(report.Players[0].State.GamesPlayed, Is.EqualTo(1u));
                Assert.That(ifIWin.Rating - mine.Rating, Is.GreaterThan(0f));
            }
        }

        /// <summary>Teams, free-for-alls, the leaderboard and an unknown player.</summary>
        [Test]
        public void TeamsFreeForAllsAndTheLeaderboard()
        {
            string ladder = NewLadder("{}");
            using (var server = Client("ELO_LADDER_REPORT_KEY"))
            using (var game = Client("ELO_LADDER_READ_KEY"))
            {
                MatchReport team = server.ReportMatchAsync(ladder, "t1", new[] { "a", "b" }, new[] { "c", "d" }, 1.0).GetAwaiter().GetResult();
                Assert.That(team.Players.Length, Is.EqualTo(4));
                Assert.That(team.Players[0].State.Rating, Is.EqualTo(1516f));
                Assert.That(team.Players[3].State.Rating, Is.EqualTo(1484f));
                MatchReport ffa = server.ReportMatchAsync(ladder, "f1", new[] { "e", "f", "g", "h" }, new[] { 1, 2, 2, 4 }).GetAwaiter().GetResult();
                Assert.That(ffa.Seq, Is.GreaterThan(team.Seq));
                Assert.That(ffa.Players[0].State.Rating, Is.EqualTo(1516f));
                Assert.That(ffa.Players[1].State.Rating, Is.EqualTo(1500f));
                LeaderboardEntry[] top = game.GetLeaderboardAsync(ladder, 3).GetAwaiter().GetResult();
                Assert.That(top.Length, Is.EqualTo(3));
                Assert.That(top[0].Rank, Is.EqualTo(1));
                Assert.That(top[0].Player, Is.EqualTo("a"), "ties go to the player who joined first");
                Assert.That(top[2].Player, Is.EqualTo("e"));
                Assert.That(game.GetLeaderboardAsync(ladder, 2, 1).GetAwaiter().GetResult()[0].Player, Is.EqualTo("b"));
                Assert.That(game.GetPlayerAsync(ladder, "nobody").GetAwaiter().GetResult(), Is.Null);
                Assert.That(game.GetPlayerAsync(ladder, "h").GetAwaiter().GetResult().Rank, Is.EqualTo(8));
            }
        }

        /// <summary>A retry gets the same answer; misuse gets the server's status and code.</summary>
        [Test]
        public void RetriesAreAppliedOnceAndErrorsCarryTheServersCode()
        {
            string ladder = NewLadder("{}");
            using (var server = Client("ELO_LADDER_REPORT_KEY"))
            using (var game = Client("ELO_LADDER_READ_KEY"))
            {
                MatchReport first = server.ReportMatchAsync(ladder, "m", "x", "y", 1.0).GetAwaiter().GetResult();
                MatchReport again = server.ReportMatchAsync(ladder, "m", "x", "y", 1.0).GetAwaiter().GetResult();
                Assert.That(again.Seq, Is.EqualTo(first.Seq));
                Assert.That(game.GetPlayerAsync(ladder, "x").GetAwaiter().GetResult().State.GamesPlayed, Is.EqualTo(1u));
                var reused = Assert.Throws<LadderException>(() => server.ReportMatchAsync(ladder, "m", "x", "y", 0.0).GetAwaiter().GetResult());
                Assert.That(reused.Status, Is.EqualTo(409));
                Assert.That(reused.Code, Is.EqualTo("match_id_reused"));
                Assert.That(reused.IsRetryable, Is.False);
                var badScore = Assert.Throws<LadderException>(() => server.ReportMatchAsync(ladder, "n", "x", "y", 2.0).GetAwaiter().GetResult());
                Assert.That(badScore.Status, Is.EqualTo(422));
                var readOnly = Assert.Throws<LadderException>(() => game.ReportMatchAsync(ladder, "n", "x", "y", 1.0).GetAwaiter().GetResult());
                Assert.That(readOnly.Status, Is.EqualTo(403));
                var unknown = Assert.Throws<LadderException>(() => game.GetLeaderboardAsync("no-such-ladder").GetAwaiter().GetResult());
                Assert.That(unknown.Code, Is.EqualTo("unknown_ladder"));
                using (var nowhere = new LadderClient("http://127.0.0.1:9", "elo_x"))
                {
                    var down = Assert.Throws<LadderException>(() => nowhere.GetLeaderboardAsync(ladder).GetAwaiter().GetResult());
                    Assert.That(down.Status, Is.EqualTo(0));
                    Assert.That(down.IsRetryable, Is.True);
                }
            }
        }

        // --- Timeouts, cancellation and retries, against elo-ladder servers of the tests' own
        // (ELO_LADDER_BIN), which they stop with SIGSTOP (the kernel still accepts connections:
        // a server that accepts and never answers), kill with SIGKILL and restart.

        /// <summary>One <c>elo-ladder serve</c> on a SQLite file of its own, with its keys.</summary>
        private sealed class OwnServer : IDisposable
        {
            private readonly string folder;
            private readonly string database;
            private readonly int rateLimit;
            private Process process;
            internal string Url;
            internal int Port;
            internal string AdminKey, ReportKey, ReadKey;

            internal OwnServer(int rateLimit)
            {
                this.rateLimit = rateLimit;
                folder = Path.Combine(Path.GetTempPath(), "elo-ladder-cs-" + Guid.NewGuid().ToString("N").Substring(0, 12));
                Directory.CreateDirectory(folder);
                database = "sqlite://" + Path.Combine(folder, "ladder.db");
                AdminKey = Key("admin");
                ReportKey = Key("report");
                ReadKey = Key("read");
                Start(0);
            }

            private string Key(string scope)
            {
                var info = new ProcessStartInfo(Setting("ELO_LADDER_BIN"), "keys create --database " + database + " --scope " + scope)
                {
                    UseShellExecute = false,
                    RedirectStandardOutput = true,
                    RedirectStandardError = true,
                };
                using (Process keys = Process.Start(info))
                {
                    string output = keys.StandardOutput.ReadToEnd();
                    keys.StandardError.ReadToEnd();
                    keys.WaitForExit();
                    Assert.That(keys.ExitCode, Is.EqualTo(0), "elo-ladder keys create");
                    string[] lines = output.Trim().Split('\n');
                    return lines[lines.Length - 1].Trim();
                }
            }

            /// <summary>Starts the server on <paramref name="port"/> (0: any) and waits until it listens.</summary>
            internal void Start(int port)
            {
                var info = new ProcessStartInfo(Setting("ELO_LADDER_BIN"), "serve --listen 127.0.0.1:" + port.ToString(CultureInfo.InvariantCulture) + " --database " + database + " --rate-limit " + rateLimit.ToString(CultureInfo.InvariantCulture))
                {
                    UseShellExecute = false,
                    RedirectStandardOutput = true,
                };
                process = Process.Start(info);
                string line = process.StandardOutput.ReadLine() ?? "";
                int at = line.IndexOf("http://", StringComparison.Ordinal);
                Assert.That(at, Is.GreaterThanOrEqualTo(0), "elo-ladder said: " + line);
                Url = line.Substring(at).Split(' ')[0];
                Port = int.Parse(Url.Substring(Url.LastIndexOf(':') + 1), CultureInfo.InvariantCulture);
            }

            /// <summary>kill -9: no chance to finish anything.</summary>
            internal void Kill()
            {
                process.Kill();
                process.WaitForExit();
            }

            /// <summary>SIGSTOP: connections are still accepted (by the kernel) and never answered.</summary>
            internal void Freeze()
            {
                Signal("-STOP");
            }

            private void Signal(string signal)
            {
                using (Process kill = Process.Start(new ProcessStartInfo("kill", signal + " " + process.Id.ToString(CultureInfo.InvariantCulture)) { UseShellExecute = false }))
                {
                    kill.WaitForExit();
                }
            }

            public void Dispose()
            {
                try
                {
                    if (!process.HasExited)
                    {
                        process.Kill();
                        process.WaitForExit();
                    }
                }
                catch (InvalidOperationException)
                {
                }
                try
                {
                    Directory.Delete(folder, true);
                }
                catch (IOException)
                {
                }
            }
        }

        private static T Within<T>(Task<T> task, TimeSpan limit, string what)
        {
            Assert.That(task.Wait(limit) || task.IsCompleted, Is.True, what + " did not finish within " + limit.TotalSeconds + " s");
            return task.GetAwaiter().GetResult();
        }

        /// <summary>Runs <paramref name="action"/> and returns what it threw and how long it took.</summary>
        private static Exception Timed(Action action, out TimeSpan took)
        {
            var watch = Stopwatch.StartNew();
            try
            {
                action();
            }
            catch (Exception error)
            {
                took = watch.Elapsed;
                return error;
            }
            took = watch.Elapsed;
            return null;
        }

        /// <summary>The journal's entries with <paramref name="matchId"/>: 1 for a match applied once.</summary>
        private static int JournalEntries(OwnServer server, string ladder, string matchId)
        {
            using (var http = new HttpClient())
            using (var request = new HttpRequestMessage(HttpMethod.Get, server.Url + "/v1/ladders/" + ladder + "/matches?after=0&limit=1000"))
            {
                request.Headers.TryAddWithoutValidation("Authorization", "Bearer " + server.ReadKey);
                string text = http.SendAsync(request).GetAwaiter().GetResult().Content.ReadAsStringAsync().GetAwaiter().GetResult();
                int count = 0;
                for (int at = text.IndexOf("\"id\":\"" + matchId + "\"", StringComparison.Ordinal); at >= 0; at = text.IndexOf("\"id\":\"" + matchId + "\"", at + 1, StringComparison.Ordinal))
                {
                    count++;
                }
                return count;
            }
        }

        /// <summary>
        /// A server that accepts the connection and never answers: the call fails with the
        /// timeout (the client's, then a shorter one of the call), not after Unity's or
        /// HttpClient's own limits (none, and 100 s).
        /// </summary>
        [Test]
        public void AServerThatNeverAnswersGivesTheTimeout()
        {
            Assert.That(LadderClient.DefaultTimeout, Is.EqualTo(TimeSpan.FromSeconds(10)));
            using (var frozen = new OwnServer(0))
            {
                string ladder = NewLadder("{}", frozen.Url, frozen.AdminKey);
                frozen.Freeze();
                using (var client = new LadderClient(frozen.Url, frozen.ReportKey))
                {
                    Assert.That(client.Timeout, Is.EqualTo(LadderClient.DefaultTimeout));
                    client.Timeout = TimeSpan.FromSeconds(2);
                    TimeSpan took;
                    var error = Timed(() => client.ReportMatchAsync(ladder, "m", "a", "b", 1.0).GetAwaiter().GetResult(), out took) as LadderException;
                    Assert.That(error, Is.Not.Null, "a LadderException");
                    Assert.That(error.Code, Is.EqualTo("timeout"));
                    Assert.That(error.Status, Is.EqualTo(0));
                    Assert.That(error.IsRetryable, Is.True);
                    Assert.That(took.TotalSeconds, Is.InRange(1.9, 12.0), "the client's timeout");
                    // A shorter timeout for one call.
                    client.Timeout = TimeSpan.FromSeconds(8);
                    error = Timed(() => client.GetLeaderboardAsync(ladder, timeout: TimeSpan.FromMilliseconds(300)).GetAwaiter().GetResult(), out took) as LadderException;
                    Assert.That(error != null && error.Code == "timeout", Is.True, "the call's timeout");
                    Assert.That(took.TotalSeconds, Is.InRange(0.25, 6.0), "the call's own timeout, not the client's 8 s");
                    Assert.Throws<ArgumentOutOfRangeException>(() => client.Timeout = TimeSpan.Zero);
                }
            }
        }

        /// <summary>Cancellation stops a call in flight, a call not started, and the waits between retries.</summary>
        [Test]
        public void CancellationStopsCallsAndRetries()
        {
            using (var frozen = new OwnServer(0))
            {
                string ladder = NewLadder("{}", frozen.Url, frozen.AdminKey);
                frozen.Freeze();
                using (var client = new LadderClient(frozen.Url, frozen.ReadKey) { Timeout = TimeSpan.FromSeconds(30) })
                using (var soon = new CancellationTokenSource(TimeSpan.FromMilliseconds(300)))
                {
                    TimeSpan took;
                    Exception error = Timed(() => client.GetPlayerAsync(ladder, "a", cancellationToken: soon.Token).GetAwaiter().GetResult(), out took);
                    Assert.That(error, Is.InstanceOf<OperationCanceledException>(), "cancelled in flight: " + error);
                    Assert.That(took.TotalSeconds, Is.LessThan(5.0));
                    Assert.Throws(Is.InstanceOf<OperationCanceledException>(), () => client.GetLeaderboardAsync(ladder, cancellationToken: soon.Token).GetAwaiter().GetResult());
                }
            }
            using (var nowhere = new LadderClient("http://127.0.0.1:9", "elo_x"))
            using (var soon = new CancellationTokenSource(TimeSpan.FromMilliseconds(500)))
            {
                int retries = 0;
                var policy = new LadderRetryPolicy { FirstDelay = TimeSpan.FromSeconds(20), OnRetry = (attempt, failure, wait) => retries++ };
                TimeSpan took;
                Exception error = Timed(() => LadderClient.RetryAsync(token => nowhere.GetLeaderboardAsync("l", cancellationToken: token), policy, soon.Token).GetAwaiter().GetResult(), out took);
                Assert.That(error, Is.InstanceOf<OperationCanceledException>(), "cancelled while waiting to retry: " + error);
                Assert.That(retries, Is.EqualTo(1));
                Assert.That(took.TotalSeconds, Is.LessThan(5.0), "the 10 to 20 s wait was cut short");
            }
        }

        /// <summary>
        /// The point of idempotent reports: a dedicated server retries the same match (same
        /// id) across a server killed with SIGKILL and restarted, and across a server that
        /// stopped answering (timeouts) and was then killed and restarted; each match is
        /// applied exactly once.
        /// </summary>
        [Test]
        public void RetriesAcrossAKilledAndRestartedServerApplyTheMatchOnce()
        {
            using (var server = new OwnServer(0))
            {
                string ladder = NewLadder("{}", server.Url, server.AdminKey);
                using (var client = new LadderClient(server.Url, server.ReportKey))
                {
                    client.ReportMatchAsync(ladder, "warm", "alice", "bob", 1.0).GetAwaiter().GetResult();
                    var retries = new System.Collections.Concurrent.ConcurrentQueue<LadderException>();
                    var policy = new LadderRetryPolicy
                    {
                        MaxAttempts = 60,
                        FirstDelay = TimeSpan.FromMilliseconds(100),
                        MaxDelay = TimeSpan.FromMilliseconds(400),
                        OnRetry = (attempt, failure, wait) => retries.Enqueue(failure),
                    };

                    // 1. Killed: connections are refused until it is back.
                    server.Kill();
                    string id = "killed-" + Guid.NewGuid().ToString("N").Substring(0, 8);
                    Task<MatchReport> report = LadderClient.RetryAsync(token => client.ReportMatchAsync(ladder, id, "alice", "bob", 1.0, cancellationToken: token), policy);
                    var watch = Stopwatch.StartNew();
                    while (retries.Count < 3 && watch.Elapsed < TimeSpan.FromSeconds(20))
                    {
                        Thread.Sleep(20);
                    }
                    Assert.That(report.IsCompleted, Is.False, "still retrying while the server is down");
                    server.Start(server.Port);
                    MatchReport first = Within(report, TimeSpan.FromSeconds(30), "the retries");
                    Assert.That(retries.Count, Is.GreaterThanOrEqualTo(3));
                    foreach (LadderException failure in retries)
                    {
                        Assert.That(failure.Code, Is.EqualTo("unreachable"), failure.Message);
                    }
                    Assert.That(first.Players[0].State.GamesPlayed, Is.EqualTo(2u));
                    Assert.That(JournalEntries(server, ladder, id), Is.EqualTo(1), "applied exactly once");
                    MatchReport again = client.ReportMatchAsync(ladder, id, "alice", "bob", 1.0).GetAwaiter().GetResult();
                    Assert.That(again.Seq, Is.EqualTo(first.Seq), "a retry after success gets the original answer");

                    // 2. Stopped: every attempt times out; then killed and restarted.
                    while (retries.TryDequeue(out _))
                    {
                    }
                    server.Freeze();
                    id = "frozen-" + Guid.NewGuid().ToString("N").Substring(0, 8);
                    report = LadderClient.RetryAsync(token => client.ReportMatchAsync(ladder, id, "alice", "carol", 0.5, TimeSpan.FromMilliseconds(400), token), policy);
                    watch.Restart();
                    while (retries.Count < 2 && watch.Elapsed < TimeSpan.FromSeconds(20))
                    {
                        Thread.Sleep(20);
                    }
                    server.Kill();
                    server.Start(server.Port);
                    MatchReport second = Within(report, TimeSpan.FromSeconds(30), "the retries");
                    LadderException firstFailure;
                    Assert.That(retries.TryPeek(out firstFailure) && firstFailure.Code == "timeout", Is.True, "the stopped server's attempts time out");
                    Assert.That(second.Players[0].State.GamesPlayed, Is.EqualTo(3u), "alice: warm, killed, frozen");
                    Assert.That(JournalEntries(server, ladder, id), Is.EqualTo(1), "applied exactly once");
                    using (var reader = new LadderClient(server.Url, server.ReadKey))
                    {
                        Assert.That(reader.GetPlayerAsync(ladder, "alice").GetAwaiter().GetResult().State.GamesPlayed, Is.EqualTo(3u));
                    }
                }
            }
        }

        /// <summary>A 429 with Retry-After is retried after that wait; a refused request (409, 422) is not retried.</summary>
        [Test]
        public void Only429WithRetryAfterTimeoutsConnectionErrorsAnd5xxAreRetried()
        {
            using (var server = new OwnServer(1))
            {
                string ladder = NewLadder("{}", server.Url, server.AdminKey);
                using (var client = new LadderClient(server.Url, server.ReportKey))
                {
                    var seen = new System.Collections.Generic.List<LadderException>();
                    var waits = new System.Collections.Generic.List<TimeSpan>();
                    var policy = new LadderRetryPolicy { FirstDelay = TimeSpan.FromMilliseconds(10), OnRetry = (attempt, failure, wait) => { seen.Add(failure); waits.Add(wait); } };
                    // One request a second for this key: the second report meets a 429.
                    client.ReportMatchAsync(ladder, "r1", "a", "b", 1.0).GetAwaiter().GetResult();
                    var watch = Stopwatch.StartNew();
                    MatchReport second = LadderClient.RetryAsync(token => client.ReportMatchAsync(ladder, "r2", "a", "b", 1.0, cancellationToken: token), policy).GetAwaiter().GetResult();
                    Assert.That(second.Seq, Is.EqualTo(2));
                    Assert.That(seen.Count, Is.GreaterThanOrEqualTo(1));
                    Assert.That(seen[0].Status, Is.EqualTo(429));
                    Assert.That(seen[0].RetryAfter, Is.EqualTo(TimeSpan.FromSeconds(1)), "the server's Retry-After");
                    Assert.That(waits[0], Is.GreaterThanOrEqualTo(TimeSpan.FromSeconds(1)), "the wait honours Retry-After");
                    Assert.That(watch.Elapsed.TotalSeconds, Is.GreaterThanOrEqualTo(0.9));
                    // The same id with another result: 409, thrown at once, never retried.
                    seen.Clear();
                    Thread.Sleep(1100);
                    var reused = Assert.Throws<LadderException>(() => LadderClient.RetryAsync(token => client.ReportMatchAsync(ladder, "r2", "a", "b", 0.0, cancellationToken: token), policy).GetAwaiter().GetResult());
                    Assert.That(reused.Status, Is.EqualTo(409));
                    Assert.That(seen, Is.Empty, "a 409 is not retried");
                    Thread.Sleep(1100);
                    var invalid = Assert.Throws<LadderException>(() => LadderClient.RetryAsync(token => client.ReportMatchAsync(ladder, "r3", "a", "b", 2.0, cancellationToken: token), policy).GetAwaiter().GetResult());
                    Assert.That(invalid.Status, Is.EqualTo(422));
                    Assert.That(seen, Is.Empty, "a 422 is not retried");
                }
            }
        }

        /// <summary>Which failures are worth retrying, and the Retry-After forms.</summary>
        [Test]
        public void RetryableFailuresAndRetryAfter()
        {
            Assert.That(new LadderException(0, "timeout", "").IsRetryable, Is.True);
            Assert.That(new LadderException(0, "unreachable", "").IsRetryable, Is.True);
            Assert.That(new LadderException(503, "unavailable", "").IsRetryable, Is.True);
            Assert.That(new LadderException(429, "rate_limited", "", TimeSpan.FromSeconds(2)).IsRetryable, Is.True);
            Assert.That(new LadderException(429, "rate_limited", "").IsRetryable, Is.False, "a 429 without Retry-After");
            Assert.That(new LadderException(409, "match_id_reused", "").IsRetryable, Is.False);
            Assert.That(new LadderException(200, "bad_response", "").IsRetryable, Is.False);
            var now = new DateTimeOffset(2026, 11, 27, 12, 0, 0, TimeSpan.Zero);
            Assert.That(LadderClient.ParseRetryAfter("3", now), Is.EqualTo(TimeSpan.FromSeconds(3)));
            Assert.That(LadderClient.ParseRetryAfter("Fri, 27 Nov 2026 12:00:05 GMT", now), Is.EqualTo(TimeSpan.FromSeconds(5)));
            Assert.That(LadderClient.ParseRetryAfter("soon", now), Is.Null);
            Assert.That(LadderClient.ParseRetryAfter(null, now), Is.Null);
            var policy = new LadderRetryPolicy { FirstDelay = TimeSpan.FromSeconds(1), MaxDelay = TimeSpan.FromSeconds(4) };
            for (int attempt = 1; attempt <= 5; attempt++)
            {
                TimeSpan full = TimeSpan.FromSeconds(Math.Min(4, Math.Pow(2, attempt - 1)));
                TimeSpan wait = policy.Wait(attempt, new LadderException(0, "timeout", ""));
                Assert.That(wait, Is.InRange(TimeSpan.FromTicks(full.Ticks / 2), full), "attempt " + attempt);
            }
            Assert.That(policy.Wait(1, new LadderException(429, "rate_limited", "", TimeSpan.FromSeconds(9))), Is.EqualTo(TimeSpan.FromSeconds(9)));
        }
    }
}
