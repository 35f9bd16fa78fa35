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
            AdminRequest(HttpMethod.Put, "/v1/ladders/" + name, rules, 201, url, adminKey);
            return name;
        }

        /// <summary>An admin request to the shared server (season ends, schedules, annulments: the client only reads and reports); returns the answer's text.</summary>
        private static string AdminRequest(HttpMethod method, string path, string body, int expectedStatus)
        {
            return AdminRequest(method, path, body, expectedStatus, Setting("ELO_LADDER_URL"), Setting("ELO_LADDER_ADMIN_KEY"));
        }

        private static string AdminRequest(HttpMethod method, string path, string body, int expectedStatus, string url, string adminKey)
        {
            using (var http = new HttpClient())
            using (var request = new HttpRequestMessage(method, url + path))
            {
                request.Headers.TryAddWithoutValidation("Authorization", "Bearer " + adminKey);
                request.Content = new StringContent(body, Encoding.UTF8, "application/json");
                var response = http.SendAsync(request).GetAwaiter().GetResult();
                string text = response.Content.ReadAsStringAsync().GetAwaiter().GetResult();
                Assert.That((int)response.StatusCode, Is.EqualTo(expectedStatus), method + " " + path + ": " + text);
                return text;
            }
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

        // --- The read routes: ladders and their rules, the one-call preview, around, history,
        // ended seasons. Each against real data on the shared server.

        /// <summary>Both players' new states in a preview and in the server's report are the same bits.</summary>
        private static void AssertSameBits(MatchPreview preview, MatchReport report, string what)
        {
            PlayerState[] previewed = { preview.AfterA, preview.AfterB };
            for (int i = 0; i < 2; i++)
            {
                PlayerState server = report.Players[i].State, client = previewed[i];
                string who = what + ", player " + (i == 0 ? "A" : "B") + ": server " + server.Rating.ToString("R", CultureInfo.InvariantCulture) + ", preview " + client.Rating.ToString("R", CultureInfo.InvariantCulture);
                Assert.That(Bits(client.Rating), Is.EqualTo(Bits(server.Rating)), who);
                Assert.That(Bits(client.PeakRating), Is.EqualTo(Bits(server.PeakRating)), who + " (peak)");
                Assert.That(client.GamesPlayed, Is.EqualTo(server.GamesPlayed), who + " (games)");
                Assert.That(client.WinStreak, Is.EqualTo(server.WinStreak), who + " (streak)");
                Assert.That(client.League, Is.EqualTo(server.League), who + " (league)");
                Assert.That(client.SeasonGames, Is.EqualTo(server.SeasonGames), who + " (season games)");
                Assert.That(client.SeasonWins, Is.EqualTo(server.SeasonWins), who + " (season wins)");
            }
        }

        /// <summary>
        /// The ladder list and one ladder's description: size, last seq, season, the rules
        /// (which round-trip through EloRules), the next season's rules and the schedule with
        /// its next times, each checked against what the test did to the ladder.
        /// </summary>
        [Test]
        public void LaddersAreListedAndDescribedWithRulesScheduleAndNextTimes()
        {
            string rulesJson = "{\"k_policy\":{\"policy\":\"fide\"},\"initial_rating\":1450,\"leagues\":[{\"name\":\"Bronze\",\"min_rating\":0},{\"name\":\"Silver\",\"min_rating\":1400}]}";
            string nextRulesJson = "{\"k_policy\":{\"policy\":\"constant\",\"k\":48}}";
            string ladder = NewLadder(rulesJson);
            using (var server = Client("ELO_LADDER_REPORT_KEY"))
            using (var game = Client("ELO_LADDER_READ_KEY"))
            {
                LadderInfo empty = game.GetLadderAsync(ladder).GetAwaiter().GetResult();
                Assert.That((empty.Name, empty.Players, empty.LastSeq, empty.Season), Is.EqualTo((ladder, 0L, 0L, 1L)));
                Assert.That(empty.SeasonEndSchedule, Is.Null);
                Assert.That(empty.DecaySchedule, Is.Null);
                Assert.That(empty.NextSeasonEnd, Is.Null);
                Assert.That(empty.NextDecay, Is.Null);
                Assert.That(empty.NextRulesJson, Is.Null);
                Assert.That(empty.CreateNextRules(), Is.Null);

                server.ReportMatchAsync(ladder, "m1", "alice", "bob", 1.0).GetAwaiter().GetResult();
                MatchReport last = server.ReportMatchAsync(ladder, "m2", "carol", "bob", 0.5).GetAwaiter().GetResult();
                AdminRequest(HttpMethod.Put, "/v1/ladders/" + ladder + "/next-rules", nextRulesJson, 200);
                // Far from any test run: 1 January 00:00 and 1 July 03:15, UTC.
                AdminRequest(HttpMethod.Put, "/v1/ladders/" + ladder + "/schedule", "{\"season_end\":\"0 0 1 1 *\",\"decay\":\"15 3 1 7 *\"}", 200);
                DateTimeOffset now = DateTimeOffset.UtcNow;

                LadderInfo info = game.GetLadderAsync(ladder).GetAwaiter().GetResult();
                Assert.That((info.Name, info.Players, info.LastSeq, info.Season), Is.EqualTo((ladder, 3L, last.Seq, 1L)));
                using (EloRules rules = info.CreateRules())
                using (EloRules expected = EloRules.FromJson(rulesJson))
                {
                    Assert.That(rules.ToJson(), Is.EqualTo(expected.ToJson()), "the ladder's rules round-trip through EloRules");
                    Assert.That(info.RulesJson, Is.EqualTo(expected.ToJson()), "the server sends the canonical configuration, as written");
                    Assert.That(rules.LeagueCount, Is.EqualTo(2));
                    Assert.That(Bits(rules.NewPlayer().Rating), Is.EqualTo(Bits(1450f)));
                }
                using (EloRules next = info.CreateNextRules())
                using (EloRules expected = EloRules.FromJson(nextRulesJson))
                {
                    Assert.That(next, Is.Not.Null);
                    Assert.That(next.ToJson(), Is.EqualTo(expected.ToJson()), "the next season's rules");
                }
                Assert.That(info.SeasonEndSchedule, Is.EqualTo("0 0 1 1 *"));
                Assert.That(info.DecaySchedule, Is.EqualTo("15 3 1 7 *"));
                var newYear = new DateTimeOffset(now.Year + 1, 1, 1, 0, 0, 0, TimeSpan.Zero);
                var july = new DateTimeOffset(now.Year, 7, 1, 3, 15, 0, TimeSpan.Zero);
                if (july <= now)
                {
                    july = july.AddYears(1);
                }
                Assert.That(info.NextSeasonEnd, Is.EqualTo(newYear), "the next 1 January, 00:00 UTC");
                Assert.That(info.NextDecay, Is.EqualTo(july), "the next 1 July, 03:15 UTC");
                Assert.That(info.NextSeasonEnd.Value.Offset, Is.EqualTo(TimeSpan.Zero));

                LadderSummary listed = null;
                foreach (LadderSummary summary in game.ListLaddersAsync().GetAwaiter().GetResult())
                {
                    Assert.That(summary, Is.Not.InstanceOf<LadderInfo>(), "the list carries no rules");
                    if (summary.Name == ladder)
                    {
                        Assert.That(listed, Is.Null, "listed once");
                        listed = summary;
                    }
                }
                Assert.That(listed, Is.Not.Null, "the read key sees the new ladder");
                Assert.That((listed.Players, listed.LastSeq, listed.Season, listed.SeasonEndSchedule, listed.DecaySchedule), Is.EqualTo((3L, last.Seq, 1L, "0 0 1 1 *", "15 3 1 7 *")));
                Assert.That((listed.NextSeasonEnd, listed.NextDecay), Is.EqualTo((info.NextSeasonEnd, info.NextDecay)));

                var unknown = Assert.Throws<LadderException>(() => game.GetLadderAsync("no-such-ladder").GetAwaiter().GetResult());
                Assert.That((unknown.Status, unknown.Code), Is.EqualTo((404, "unknown_ladder")));
            }
        }

        /// <summary>
        /// PreviewAsync reads the ladder's rules and both players from the server and gives,
        /// bit for bit, the states the server stores when the match is then reported: for a
        /// fractional score that a float cannot hold exactly (2/3), for WithScore's other
        /// results, and in a zero-sum ladder between players who have played.
        /// </summary>
        [Test]
        public void PreviewAsyncIsTheServersResultBitForBit()
        {
            string rulesJson = "{\"k_policy\":{\"policy\":\"fide\"},\"streak_alpha\":0.25,\"expected_score\":{\"model\":\"normal\"},\"victory_bonus\":1.5}";
            string ladder = NewLadder(rulesJson);
            using (var server = Client("ELO_LADDER_REPORT_KEY"))
            using (var game = Client("ELO_LADDER_READ_KEY"))
            {
                server.ReportMatchAsync(ladder, "warm-1", "alice", "bob", 0.0).GetAwaiter().GetResult();
                server.ReportMatchAsync(ladder, "warm-2", "alice", "carol", 1.0).GetAwaiter().GetResult();
                server.ReportMatchAsync(ladder, "warm-3", "bob", "carol", 0.5).GetAwaiter().GetResult();
                server.ReportMatchAsync(ladder, "warm-4", "alice", "dave", 1.0).GetAwaiter().GetResult();

                // Two of three rounds won: 2/3 is not a float; the server rates the nearest one.
                double twoThirds = 2.0 / 3.0;
                MatchPreview preview = game.PreviewAsync(ladder, "alice", "bob", twoThirds).GetAwaiter().GetResult();
                Assert.That(preview.PlayerA.Player, Is.EqualTo("alice"));
                Assert.That(preview.PlayerB.Player, Is.EqualTo("bob"));
                Assert.That(Bits(preview.BeforeA.Rating), Is.EqualTo(Bits(preview.PlayerA.State.Rating)));
                Assert.That(preview.ChangeA, Is.EqualTo(preview.AfterA.Rating - preview.BeforeA.Rating));
                Assert.That(preview.Ladder.Name, Is.EqualTo(ladder));
                MatchReport report = server.ReportMatchAsync(ladder, "final", "alice", "bob", twoThirds).GetAwaiter().GetResult();
                AssertSameBits(preview, report, "2/3");
                Assert.That(Bits(preview.ScoreA), Is.EqualTo(Bits((float)twoThirds)), "the score rated: the nearest float, as the server rounds it");

                // One read, another result: WithScore gives what a loss would have.
                MatchPreview ifCarolWins = game.PreviewAsync(ladder, "alice", "carol", 1.0).GetAwaiter().GetResult().WithScore(0.0);
                Assert.That(ifCarolWins.ChangeA, Is.LessThan(0f));
                Assert.That(ifCarolWins.ChangeB, Is.GreaterThan(0f));
                AssertSameBits(ifCarolWins, server.ReportMatchAsync(ladder, "loss", "alice", "carol", 0.0).GetAwaiter().GetResult(), "WithScore(0)");

                // The same preview from a description read once (LadderInfo.Preview).
                LadderInfo info = game.GetLadderAsync(ladder).GetAwaiter().GetResult();
                LadderPlayer bob = game.GetPlayerAsync(ladder, "bob").GetAwaiter().GetResult();
                LadderPlayer dave = game.GetPlayerAsync(ladder, "dave").GetAwaiter().GetResult();
                MatchPreview local = info.Preview(bob, dave, 0.3);
                AssertSameBits(local, server.ReportMatchAsync(ladder, "local", "bob", "dave", 0.3).GetAwaiter().GetResult(), "LadderInfo.Preview");

                Assert.Throws<ArgumentOutOfRangeException>(() => game.PreviewAsync(ladder, "alice", "bob", 1.5).GetAwaiter().GetResult());
                Assert.Throws<ArgumentException>(() => game.PreviewAsync(ladder, "alice", "alice", 1.0).GetAwaiter().GetResult());
                var unknown = Assert.Throws<LadderException>(() => game.PreviewAsync("no-such-ladder", "alice", "bob", 1.0).GetAwaiter().GetResult());
                Assert.That(unknown.Code, Is.EqualTo("unknown_ladder"));
            }

            // Zero-sum: the server reads current ratings (stored plus the ladder's offset) and
            // rates them as a single call does; the preview from the read states is exact.
            string zeroSum = NewLadder("{\"zero_sum_total\":4500,\"victory_bonus\":2}");
            using (var server = Client("ELO_LADDER_REPORT_KEY"))
            using (var game = Client("ELO_LADDER_READ_KEY"))
            {
                server.ReportMatchAsync(zeroSum, "z1", "a", "b", 1.0).GetAwaiter().GetResult();
                server.ReportMatchAsync(zeroSum, "z2", "b", "c", 0.75).GetAwaiter().GetResult();
                server.ReportMatchAsync(zeroSum, "z3", "c", "a", 1.0).GetAwaiter().GetResult();
                MatchPreview preview = game.PreviewAsync(zeroSum, "a", "b", 0.6).GetAwaiter().GetResult();
                AssertSameBits(preview, server.ReportMatchAsync(zeroSum, "z4", "a", "b", 0.6).GetAwaiter().GetResult(), "zero-sum");
            }
        }

        /// <summary>
        /// A player who has not played yet previews from the ladder's new-player state, read
        /// from the server's rules, and that is the server's result bit for bit: a newcomer
        /// against a veteran with a fractional score, and two newcomers.
        /// </summary>
        [Test]
        public void PreviewAsyncForNewcomersIsTheServersResult()
        {
            string rulesJson = "{\"k_policy\":{\"policy\":\"fide\"},\"initial_rating\":1450,\"leagues\":[{\"name\":\"Bronze\",\"min_rating\":0},{\"name\":\"Silver\",\"min_rating\":1400},{\"name\":\"Gold\",\"min_rating\":1600}]}";
            string ladder = NewLadder(rulesJson);
            using (var server = Client("ELO_LADDER_REPORT_KEY"))
            using (var game = Client("ELO_LADDER_READ_KEY"))
            using (var rules = EloRules.FromJson(rulesJson))
            {
                server.ReportMatchAsync(ladder, "warm", "veteran", "other", 1.0).GetAwaiter().GetResult();
                MatchPreview preview = game.PreviewAsync(ladder, "newcomer", "veteran", 0.25).GetAwaiter().GetResult();
                Assert.That(preview.PlayerA, Is.Null, "a player who has not played yet");
                Assert.That(preview.PlayerB, Is.Not.Null);
                Assert.That(Bits(preview.BeforeA.Rating), Is.EqualTo(Bits(1450f)), "the ladder's initial rating");
                Assert.That(preview.BeforeA.GamesPlayed, Is.EqualTo(0u));
                Assert.That(Bits(preview.Ladder.NewPlayerState().Rating), Is.EqualTo(Bits(rules.NewPlayer().Rating)));
                MatchReport report = server.ReportMatchAsync(ladder, "first", "newcomer", "veteran", 0.25).GetAwaiter().GetResult();
                AssertSameBits(preview, report, "newcomer against a veteran");
                Assert.That(report.Players[0].State.GamesPlayed, Is.EqualTo(1u));

                MatchPreview both = game.PreviewAsync(ladder, "fresh-1", "fresh-2", 1.0).GetAwaiter().GetResult();
                Assert.That(both.PlayerA == null && both.PlayerB == null, Is.True);
                Assert.That(both.ChangeA, Is.GreaterThan(0f));
                AssertSameBits(both, server.ReportMatchAsync(ladder, "fresh", "fresh-1", "fresh-2", 1.0).GetAwaiter().GetResult(), "two newcomers");
            }
        }

        /// <summary>
        /// Around a player: for every player of a ladder of nine, the lines are the full
        /// board's slice centred on them (two above, two below, fewer at the ends) with the
        /// same ranks and rating bits, consecutive, and containing the player; a player who has
        /// not played gets an empty array; a limit out of range is the server's 400.
        /// </summary>
        [Test]
        public void AroundAPlayerIsTheBoardsSliceWithConsecutiveRanks()
        {
            string ladder = NewLadder("{\"k_policy\":{\"policy\":\"constant\",\"k\":24}}");
            using (var server = Client("ELO_LADDER_REPORT_KEY"))
            using (var game = Client("ELO_LADDER_READ_KEY"))
            {
                // p0 beats everyone after them, p1 beats p2.., so ratings spread out.
                for (int i = 0; i < 9; i++)
                {
                    for (int j = i + 1; j < 9; j += 2)
                    {
                        server.ReportMatchAsync(ladder, "m" + i + "-" + j, "p" + i, "p" + j, j - i == 1 ? 0.75 : 1.0).GetAwaiter().GetResult();
                    }
                }
                LeaderboardEntry[] board = game.GetLeaderboardAsync(ladder, 1000).GetAwaiter().GetResult();
                Assert.That(board.Length, Is.EqualTo(9));
                for (int i = 0; i < board.Length; i++)
                {
                    string player = board[i].Player;
                    LeaderboardEntry[] around = game.GetLeaderboardAroundAsync(ladder, player, 5).GetAwaiter().GetResult();
                    int start = Math.Max(0, i - 2), end = Math.Min(board.Length, i + 3);
                    Assert.That(around.Length, Is.EqualTo(end - start), "around " + player + " (rank " + (i + 1) + ")");
                    bool found = false;
                    for (int k = 0; k < around.Length; k++)
                    {
                        LeaderboardEntry expected = board[start + k];
                        Assert.That((around[k].Rank, around[k].Player, Bits(around[k].Rating), around[k].League), Is.EqualTo((expected.Rank, expected.Player, Bits(expected.Rating), expected.League)), "around " + player + ", line " + k);
                        if (k > 0)
                        {
                            Assert.That(around[k].Rank, Is.EqualTo(around[k - 1].Rank + 1), "consecutive ranks");
                        }
                        if (around[k].Player == player)
                        {
                            found = true;
                            Assert.That(around[k].Rank, Is.EqualTo(game.GetPlayerAsync(ladder, player).GetAwaiter().GetResult().Rank), "the player's own rank");
                        }
                    }
                    Assert.That(found, Is.True, player + " is in their own page");
                }
                Assert.That(game.GetLeaderboardAroundAsync(ladder, board[4].Player).GetAwaiter().GetResult().Length, Is.EqualTo(9), "the default (21) holds the whole ladder");
                Assert.That(game.GetLeaderboardAroundAsync(ladder, "nobody", 5).GetAwaiter().GetResult(), Is.Empty);
                var bad = Assert.Throws<LadderException>(() => game.GetLeaderboardAroundAsync(ladder, "p0", 0).GetAwaiter().GetResult());
                Assert.That(bad.Status, Is.EqualTo(400));
            }
        }

        /// <summary>
        /// A player's history: paged newest first with the Before token, one line per match
        /// with the report's seq, id, kind and rating bits; each line starts where the older
        /// one ended; the newest ends at the player's current rating; an annulled match stays,
        /// marked, and the rebuilt newest line still ends at the current rating.
        /// </summary>
        [Test]
        public void HistoryPagesNewestFirstAndEndsAtTheCurrentRating()
        {
            string ladder = NewLadder("{\"k_policy\":{\"policy\":\"fide\"},\"streak_alpha\":0.25}");
            using (var server = Client("ELO_LADDER_REPORT_KEY"))
            using (var game = Client("ELO_LADDER_READ_KEY"))
            {
                var reports = new System.Collections.Generic.List<MatchReport>();
                var ids = new System.Collections.Generic.List<string>();
                DateTimeOffset started = DateTimeOffset.UtcNow;
                for (int i = 0; i < 6; i++)
                {
                    string id = "h" + i;
                    ids.Add(id);
                    reports.Add(i == 3
                        ? server.ReportMatchAsync(ladder, id, new[] { "alice", "erin" }, new[] { "bob", "frank" }, 0.0).GetAwaiter().GetResult()
                        : server.ReportMatchAsync(ladder, id, "alice", "opponent-" + (i % 2), i * 0.2).GetAwaiter().GetResult());
                    server.ReportMatchAsync(ladder, "other" + i, "bob", "carol", 1.0).GetAwaiter().GetResult(); // not alice's
                }

                // Pages of 4: the first full (Before set), the second the last two.
                HistoryPage first = game.GetHistoryAsync(ladder, "alice", limit: 4).GetAwaiter().GetResult();
                Assert.That(first.Entries.Length, Is.EqualTo(4));
                Assert.That(first.Before, Is.EqualTo(first.Entries[3].Seq), "the token is the oldest seq of the page");
                HistoryPage second = game.GetHistoryAsync(ladder, "alice", first.Before, 4).GetAwaiter().GetResult();
                Assert.That(second.Entries.Length, Is.EqualTo(2));
                Assert.That(second.Before, Is.Null, "the last page");
                var entries = new System.Collections.Generic.List<HistoryEntry>(first.Entries);
                entries.AddRange(second.Entries);
                Assert.That(entries.Count, Is.EqualTo(6), "alice's matches only");
                for (int k = 0; k < 6; k++)
                {
                    int match = 5 - k; // newest first
                    HistoryEntry line = entries[k];
                    Assert.That((line.Seq, line.Id, line.Kind, line.Annulled), Is.EqualTo((reports[match].Seq, ids[match], match == 3 ? "team" : "pair", false)), "line " + k);
                    Assert.That(Bits(line.RatingAfter), Is.EqualTo(Bits(reports[match].Players[0].State.Rating)), "line " + k + ": the report's rating");
                    Assert.That(line.Time, Is.InRange(started.AddSeconds(-5), DateTimeOffset.UtcNow.AddSeconds(5)), "line " + k + ": the server's time");
                    if (k + 1 < 6)
                    {
                        Assert.That(Bits(line.RatingBefore), Is.EqualTo(Bits(entries[k + 1].RatingAfter)), "line " + k + " starts where the older one ended");
                        Assert.That(line.Time, Is.GreaterThanOrEqualTo(entries[k + 1].Time));
                    }
                }
                Assert.That(Bits(entries[5].RatingBefore), Is.EqualTo(Bits(1500f)), "the first match starts at the new-player rating");
                LadderPlayer alice = game.GetPlayerAsync(ladder, "alice").GetAwaiter().GetResult();
                Assert.That(Bits(entries[0].RatingAfter), Is.EqualTo(Bits(alice.State.Rating)), "the newest line ends at the current rating");
                Assert.That(entries[0].Time, Is.EqualTo(new DateTimeOffset(1970, 1, 1, 0, 0, 0, TimeSpan.Zero).AddTicks((long)Math.Round(alice.State.LastPlayed * TimeSpan.TicksPerSecond))), "the last match's time is the player's last_played");

                // An admin annuls h2: it stays in the history, marked, and the later lines are rebuilt.
                AdminRequest(HttpMethod.Post, "/v1/ladders/" + ladder + "/matches/h2/annul", "{\"reason\":\"a test\"}", 200);
                HistoryEntry[] after = game.GetHistoryAsync(ladder, "alice", limit: 100).GetAwaiter().GetResult().Entries;
                Assert.That(after.Length, Is.EqualTo(6));
                for (int k = 0; k < 6; k++)
                {
                    Assert.That((after[k].Id, after[k].Annulled), Is.EqualTo((ids[5 - k], ids[5 - k] == "h2")));
                }
                LadderPlayer rebuilt = game.GetPlayerAsync(ladder, "alice").GetAwaiter().GetResult();
                Assert.That(Bits(rebuilt.State.Rating), Is.Not.EqualTo(Bits(alice.State.Rating)), "the annulment moved alice");
                Assert.That(Bits(after[0].RatingAfter), Is.EqualTo(Bits(rebuilt.State.Rating)), "the rebuilt newest line ends at the current rating");
                Assert.That(Bits(after[2].RatingBefore), Is.EqualTo(Bits(after[4].RatingAfter)), "h3 starts where h1 ended: h2 counts for nothing");

                HistoryPage nobody = game.GetHistoryAsync(ladder, "nobody").GetAwaiter().GetResult();
                Assert.That(nobody.Entries, Is.Empty);
                Assert.That(nobody.Before, Is.Null);
                Assert.That(Assert.Throws<LadderException>(() => game.GetHistoryAsync(ladder, "alice", 0).GetAwaiter().GetResult()).Status, Is.EqualTo(400), "before=0");
            }
        }

        /// <summary>
        /// Ended seasons: none at first (and season 1's standings are the server's 404); after
        /// an admin's season end, the season is listed with its players and journal seq, its
        /// standings are the leaderboard at the end (ranks, names, rating bits, season
        /// records), pages with limit and offset, and later matches do not change them; the
        /// ladder is then in season 2 and the players' histories show the season end.
        /// </summary>
        [Test]
        public void SeasonsAndTheirStandingsAfterAnAdminSeasonEnd()
        {
            string ladder = NewLadder("{\"k_policy\":{\"policy\":\"constant\",\"k\":32},\"leagues\":[{\"name\":\"Low\",\"min_rating\":0},{\"name\":\"High\",\"min_rating\":1510}]}");
            using (var server = Client("ELO_LADDER_REPORT_KEY"))
            using (var game = Client("ELO_LADDER_READ_KEY"))
            {
                Assert.That(game.GetSeasonsAsync(ladder).GetAwaiter().GetResult(), Is.Empty);
                var none = Assert.Throws<LadderException>(() => game.GetSeasonStandingsAsync(ladder, 1).GetAwaiter().GetResult());
                Assert.That((none.Status, none.Code), Is.EqualTo((404, "unknown_season")));
                // A round robin of five: p0 wins all, p1 wins three, ...
                for (int i = 0; i < 5; i++)
                {
                    for (int j = i + 1; j < 5; j++)
                    {
                        server.ReportMatchAsync(ladder, "m" + i + "-" + j, "p" + i, "p" + j, 1.0).GetAwaiter().GetResult();
                    }
                }
                LeaderboardEntry[] atTheEnd = game.GetLeaderboardAsync(ladder).GetAwaiter().GetResult();
                var players = new System.Collections.Generic.Dictionary<string, PlayerState>();
                foreach (LeaderboardEntry line in atTheEnd)
                {
                    players[line.Player] = game.GetPlayerAsync(ladder, line.Player).GetAwaiter().GetResult().State;
                }
                DateTimeOffset before = DateTimeOffset.UtcNow;
                string ended = AdminRequest(HttpMethod.Post, "/v1/ladders/" + ladder + "/seasons/end", "{\"id\":\"season-one\"}", 200);
                long endSeq = long.Parse(ended.Substring(ended.IndexOf("\"seq\":", StringComparison.Ordinal) + 6).Split(',', '}')[0], CultureInfo.InvariantCulture);
                server.ReportMatchAsync(ladder, "late", "p4", "p0", 1.0).GetAwaiter().GetResult(); // season 2: the kept standings stay

                LadderSeason[] seasons = game.GetSeasonsAsync(ladder).GetAwaiter().GetResult();
                Assert.That(seasons.Length, Is.EqualTo(1));
                Assert.That((seasons[0].Season, seasons[0].Players, seasons[0].Seq), Is.EqualTo((1L, 5L, endSeq)));
                Assert.That(seasons[0].Ended, Is.InRange(before.AddSeconds(-5), DateTimeOffset.UtcNow.AddSeconds(5)));

                SeasonStanding[] standings = game.GetSeasonStandingsAsync(ladder, 1).GetAwaiter().GetResult();
                Assert.That(standings.Length, Is.EqualTo(5));
                for (int k = 0; k < 5; k++)
                {
                    SeasonStanding line = standings[k];
                    PlayerState state = players[line.Player];
                    Assert.That((line.Rank, line.Player, Bits(line.Rating)), Is.EqualTo((atTheEnd[k].Rank, atTheEnd[k].Player, Bits(atTheEnd[k].Rating))), "rank " + (k + 1));
                    Assert.That(line.Player, Is.EqualTo("p" + k));
                    Assert.That((Bits(line.PeakRating), line.League, line.PeakLeague), Is.EqualTo((Bits(state.PeakRating), state.League, state.PeakLeague)), line.Player);
                    Assert.That((line.Games, line.Wins), Is.EqualTo((4u, (uint)(4 - k))), line.Player + ": the season record");
                }
                Assert.That(standings[0].League, Is.EqualTo(1), "p0 ended in the high league");
                SeasonStanding[] page = game.GetSeasonStandingsAsync(ladder, 1, 2, 1).GetAwaiter().GetResult();
                Assert.That((page.Length, page[0].Player, page[0].Rank, page[1].Player), Is.EqualTo((2, "p1", 2L, "p2")));
                var notYet = Assert.Throws<LadderException>(() => game.GetSeasonStandingsAsync(ladder, 2).GetAwaiter().GetResult());
                Assert.That(notYet.Code, Is.EqualTo("unknown_season"), "season 2 has not ended");

                Assert.That(game.GetLadderAsync(ladder).GetAwaiter().GetResult().Season, Is.EqualTo(2L));
                HistoryEntry[] p1 = game.GetHistoryAsync(ladder, "p1").GetAwaiter().GetResult().Entries;
                Assert.That((p1[0].Kind, p1[0].Id, p1[0].Seq), Is.EqualTo(("season_end", "season-one", endSeq)), "the season end is in p1's history");
                Assert.That(Bits(p1[0].RatingBefore), Is.EqualTo(Bits(standings[1].Rating)));
                Assert.That(Bits(p1[0].RatingAfter), Is.EqualTo(Bits(game.GetPlayerAsync(ladder, "p1").GetAwaiter().GetResult().State.Rating)), "after the soft reset");
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
