// NUnit tests of RankingElo.Ladder.LadderClient on Mono against a real `elo-ladder serve`
// that `cargo xtask test` starts (on a fresh SQLite database) and names in
// ELO_LADDER_URL with an admin, a report and a read key. They fail, never skip, without it.
using System;
using System.Net.Http;
using System.Text;
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
            string name = "cs-" + Guid.NewGuid().ToString("N").Substring(0, 12);
            using (var http = new HttpClient())
            using (var request = new HttpRequestMessage(HttpMethod.Put, Setting("ELO_LADDER_URL") + "/v1/ladders/" + name))
            {
                request.Headers.TryAddWithoutValidation("Authorization", "Bearer " + Setting("ELO_LADDER_ADMIN_KEY"));
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
    }
}
