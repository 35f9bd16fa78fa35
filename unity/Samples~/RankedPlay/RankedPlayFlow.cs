using System;
using System.Diagnostics;
using System.Threading;
using System.Threading.Tasks;
using RankingElo.Ladder;

namespace RankingElo.Samples.RankedPlay
{
    /// <summary>Where a player is in the ranked-play flow.</summary>
    public enum RankedPlayStage
    {
        /// <summary>No token yet, or the server refused it.</summary>
        SignedOut,

        /// <summary>Signed in, not queued.</summary>
        Lobby,

        /// <summary>Waiting in the queue (<see cref="RankedPlayFlow.WaitingTime"/> grows).</summary>
        Queueing,

        /// <summary>A match was found: the preview shows what each result gives.</summary>
        MatchFound,

        /// <summary>The match's result is in: <see cref="RankedPlayFlow.Outcome"/>.</summary>
        Result,
    }

    /// <summary>
    /// The game's backend, which reports results to the ladder. A game client never holds a
    /// report key: in a real game the dedicated server or the studio's backend reports the
    /// match it hosted. <see cref="DemoGameBackend"/> stands in for it in this sample.
    /// </summary>
    public interface IGameBackend
    {
        /// <summary>Reports <paramref name="match"/> (as the queue made it) with side A's score.</summary>
        /// <param name="match">The queue's match.</param>
        /// <param name="scoreA">Side A's score: 1 win, 0.5 draw, 0 loss.</param>
        /// <param name="cancellationToken">Stops the call.</param>
        /// <returns>The report's answer: every player's new state.</returns>
        Task<MatchReport> ReportAsync(QueueMatch match, double scoreA, CancellationToken cancellationToken);
    }

    /// <summary>What the match did to the player: the rating before and after, and whether it is the preview's.</summary>
    public sealed class RankedPlayOutcome
    {
        /// <summary>The player's score: 1 win, 0.5 draw, 0 loss.</summary>
        public double Score { get; internal set; }

        /// <summary>The rating before the match (as matched).</summary>
        public float RatingBefore { get; internal set; }

        /// <summary>The rating the server stored.</summary>
        public float RatingAfter { get; internal set; }

        /// <summary>The change, <see cref="RatingAfter"/> minus <see cref="RatingBefore"/>.</summary>
        public float Change { get { return RatingAfter - RatingBefore; } }

        /// <summary>Whether the stored rating is, bit for bit, the one the preview promised for this score.</summary>
        public bool MatchesPreview { get; internal set; }
    }

    /// <summary>
    /// The ranked-play flow of a game client, without any UI: sign in with the player's token,
    /// queue (with the waiting time and a cancel), the match found with what each result would
    /// give ("+12 / -20", the server's own preview), the result once the game's backend
    /// reported it, the leaderboard around the player and the player's history.
    /// <see cref="RankedPlayScreen"/> draws it with UI Toolkit; the repository's tests run this
    /// class on Mono against a real <c>elo-ladder</c>.
    /// </summary>
    /// <remarks>
    /// Call it from Unity's main thread: the ladder client's requests complete there, so every
    /// property changes on the main thread and <see cref="Changed"/> is raised there.
    /// </remarks>
    public sealed class RankedPlayFlow : IDisposable
    {
        private readonly string serverUrl;
        private readonly string ladder;
        private readonly string queue;
        private readonly Stopwatch waiting = new Stopwatch();
        private LadderClient client;
        private CancellationTokenSource search;
        private string ticket;

        /// <summary>A flow for <paramref name="queue"/> of <paramref name="ladder"/> on the server at <paramref name="serverUrl"/>.</summary>
        /// <param name="serverUrl">The ladder server, e.g. <c>http://127.0.0.1:8080</c>.</param>
        /// <param name="ladder">The ladder's name.</param>
        /// <param name="queue">The queue's name (a <c>pair</c> queue).</param>
        public RankedPlayFlow(string serverUrl, string ladder, string queue)
        {
            if (string.IsNullOrEmpty(serverUrl)) throw new ArgumentException("the server's address is required", "serverUrl");
            if (string.IsNullOrEmpty(ladder)) throw new ArgumentException("the ladder's name is required", "ladder");
            if (string.IsNullOrEmpty(queue)) throw new ArgumentException("the queue's name is required", "queue");
            this.serverUrl = serverUrl;
            this.ladder = ladder;
            this.queue = queue;
        }

        /// <summary>Raised on every change of stage, and when an error is set.</summary>
        public event Action Changed;

        /// <summary>Where the player is.</summary>
        public RankedPlayStage Stage { get; private set; }

        /// <summary>The player's name on the ladder (from the server, for the token); null when signed out.</summary>
        public string Player { get; private set; }

        /// <summary>The player's rating (the ladder's new-player rating before the first match).</summary>
        public float Rating { get; private set; }

        /// <summary>The player's rank, or 0 before the first match.</summary>
        public long Rank { get; private set; }

        /// <summary>The last failure, in words for the player; null when the last step worked.</summary>
        public string Error { get; private set; }

        /// <summary>How long the player has been queueing (zero when not queueing).</summary>
        public TimeSpan WaitingTime { get { return Stage == RankedPlayStage.Queueing ? waiting.Elapsed : TimeSpan.Zero; } }

        /// <summary>The match found (from <see cref="RankedPlayStage.MatchFound"/> on).</summary>
        public QueueMatch Match { get; private set; }

        /// <summary>The opponent's name in the match found.</summary>
        public string Opponent { get; private set; }

        /// <summary>The opponent's rating when matched.</summary>
        public float OpponentRating { get; private set; }

        /// <summary>What each result gives the player: the ratings after a win, a draw and a loss (the server's preview).</summary>
        public RatingPreview Preview { get; private set; }

        /// <summary>The player's rating when matched (what <see cref="Preview"/> starts from).</summary>
        public float MatchedRating { get; private set; }

        /// <summary>The result (at <see cref="RankedPlayStage.Result"/>).</summary>
        public RankedPlayOutcome Outcome { get; private set; }

        /// <summary>
        /// Signs in with the player's token (a JWT from the studio's identity provider; for the
        /// demo, <c>elo-ladder tokens mint</c>): the server checks it and names the player, and
        /// the player's rating and rank are read. A refused token leaves the flow signed out with
        /// <see cref="Error"/> set.
        /// </summary>
        /// <param name="token">The player's token.</param>
        /// <param name="cancellationToken">Stops the sign-in (pass <c>destroyCancellationToken</c>).</param>
        /// <returns>Whether the player is signed in.</returns>
        public async Task<bool> SignInAsync(string token, CancellationToken cancellationToken)
        {
            if (string.IsNullOrEmpty(token))
            {
                return Fail("paste the player's token first");
            }
            var candidate = new LadderClient(serverUrl, token.Trim());
            try
            {
                LadderIdentity identity = await candidate.GetIdentityAsync(cancellationToken: cancellationToken);
                if (identity.Player == null)
                {
                    candidate.Dispose();
                    return Fail("this is an API key, not a player's token: a game client signs in as its player");
                }
                if (client != null) client.Dispose();
                client = candidate;
                Player = identity.Player;
                Error = null;
                await RefreshPlayerAsync(cancellationToken);
                Set(RankedPlayStage.Lobby);
                return true;
            }
            catch (LadderException error)
            {
                candidate.Dispose();
                return Fail(error.Status == 401 ? "the server refused this token (" + error.Message + ")" : Describe(error));
            }
        }

        /// <summary>Reads the player's rating and rank again (after a match, or on return to the lobby).</summary>
        /// <param name="cancellationToken">Stops the read.</param>
        /// <returns>The read.</returns>
        public async Task RefreshPlayerAsync(CancellationToken cancellationToken)
        {
            RequireSignedIn();
            LadderPlayer me = await client.GetPlayerAsync(ladder, Player, cancellationToken: cancellationToken);
            if (me != null)
            {
                Rating = me.State.Rating;
                Rank = me.Rank;
            }
            else
            {
                LadderInfo info = await client.GetLadderAsync(ladder, cancellationToken: cancellationToken);
                using (EloRules rules = info.CreateRules())
                {
                    Rating = rules.NewPlayer().Rating;
                }
                Rank = 0;
            }
            Raise();
        }

        /// <summary>
        /// Queues the player and waits for a match with long-polls (never blocking the frame).
        /// <see cref="CancelSearchAsync"/> leaves the queue; cancelling
        /// <paramref name="cancellationToken"/> (the screen closing) stops waiting and leaves the
        /// queue too.
        /// </summary>
        /// <param name="cancellationToken">Stops the search (pass <c>destroyCancellationToken</c>).</param>
        /// <returns>The match, or null when the search was cancelled, expired or failed (<see cref="Error"/>).</returns>
        public async Task<QueueMatch> FindMatchAsync(CancellationToken cancellationToken)
        {
            RequireSignedIn();
            if (Stage == RankedPlayStage.Queueing) throw new InvalidOperationException("already searching");
            Outcome = null;
            Match = null;
            Error = null;
            search = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
            CancellationToken stop = search.Token;
            try
            {
                // One request id per search: a join retried after a lost answer gets the same ticket.
                string requestId = "join-" + Guid.NewGuid().ToString("N");
                QueueTicket joined = await LadderClient.RetryAsync(
                    token => client.JoinQueueAsync(ladder, queue, new[] { Player }, requestId: requestId, cancellationToken: token),
                    null, stop);
                ticket = joined.Ticket;
                waiting.Reset();
                waiting.Start();
                Set(RankedPlayStage.Queueing);
                QueueTicket done = await client.WaitForMatchAsync(ladder, queue, ticket, stop);
                return Found(done);
            }
            catch (OperationCanceledException)
            {
                await LeaveQueueAsync();
                if (Stage != RankedPlayStage.MatchFound) Set(RankedPlayStage.Lobby);
                return Match;
            }
            catch (LadderException error)
            {
                Fail(Describe(error));
                Set(RankedPlayStage.Lobby);
                return null;
            }
            finally
            {
                waiting.Stop();
                search.Dispose();
                search = null;
            }
        }

        /// <summary>Stops searching: the ticket leaves the queue (if the match was made meanwhile, the flow shows it instead).</summary>
        public void CancelSearch()
        {
            if (search != null) search.Cancel();
        }

        /// <summary>
        /// The game's result, reported through the game's backend (<see cref="IGameBackend"/>):
        /// the player's rating after it, checked against the preview.
        /// </summary>
        /// <param name="backend">Who reports (the game server; <see cref="DemoGameBackend"/> here).</param>
        /// <param name="score">The player's score: 1 win, 0.5 draw, 0 loss.</param>
        /// <param name="cancellationToken">Stops the report (a retry of the same match is applied once).</param>
        /// <returns>The outcome, or null when the report failed (<see cref="Error"/>).</returns>
        public async Task<RankedPlayOutcome> ReportResultAsync(IGameBackend backend, double score, CancellationToken cancellationToken)
        {
            if (backend == null) throw new ArgumentNullException("backend");
            if (Stage != RankedPlayStage.MatchFound) throw new InvalidOperationException("no match to report");
            if (!(score >= 0 && score <= 1)) throw new ArgumentOutOfRangeException("score", score, "must be from 0 to 1");
            int side = Match.SideOf(Player);
            Error = null;
            try
            {
                MatchReport report = await backend.ReportAsync(Match, side == 0 ? score : 1 - score, cancellationToken);
                foreach (LadderPlayer player in report.Players)
                {
                    if (player.Player == Player) return Finish(score, player.State.Rating);
                }
                Fail("the report does not name " + Player);
                return null;
            }
            catch (LadderException error)
            {
                Fail(Describe(error));
                return null;
            }
        }

        /// <summary>
        /// The result as the other player sees it: the player's history entry for the match,
        /// once the game's backend has reported it (null before).
        /// </summary>
        /// <param name="cancellationToken">Stops the read.</param>
        /// <returns>The outcome, or null while the match is not reported yet.</returns>
        public async Task<RankedPlayOutcome> LoadResultAsync(CancellationToken cancellationToken)
        {
            if (Stage != RankedPlayStage.MatchFound && Stage != RankedPlayStage.Result) throw new InvalidOperationException("no match found yet");
            if (Outcome != null) return Outcome;
            HistoryPage page = await client.GetHistoryAsync(ladder, Player, limit: 10, cancellationToken: cancellationToken);
            foreach (HistoryEntry entry in page.Entries)
            {
                if (entry.Id == Match.Id)
                {
                    double score = Same(entry.RatingAfter, Preview.Win) ? 1 : Same(entry.RatingAfter, Preview.Loss) ? 0 : 0.5;
                    return Finish(score, entry.RatingAfter);
                }
            }
            return null;
        }

        /// <summary>The leaderboard around the player: <paramref name="lines"/> lines centred on them, best first.</summary>
        /// <param name="lines">How many lines (odd numbers centre the player).</param>
        /// <param name="cancellationToken">Stops the read.</param>
        /// <returns>The lines (empty before the player's first match).</returns>
        public Task<LeaderboardEntry[]> LoadLeaderboardAsync(int lines, CancellationToken cancellationToken)
        {
            RequireSignedIn();
            return client.GetLeaderboardAroundAsync(ladder, Player, lines, cancellationToken: cancellationToken);
        }

        /// <summary>The player's latest matches, newest first, with the rating before and after each.</summary>
        /// <param name="limit">How many (1 to 100).</param>
        /// <param name="cancellationToken">Stops the read.</param>
        /// <returns>The page.</returns>
        public Task<HistoryPage> LoadHistoryAsync(int limit, CancellationToken cancellationToken)
        {
            RequireSignedIn();
            return client.GetHistoryAsync(ladder, Player, limit: limit, cancellationToken: cancellationToken);
        }

        /// <summary>Back to the lobby after a result (the rating and rank read again).</summary>
        /// <param name="cancellationToken">Stops the read.</param>
        /// <returns>The read.</returns>
        public async Task BackToLobbyAsync(CancellationToken cancellationToken)
        {
            RequireSignedIn();
            Match = null;
            Outcome = null;
            Set(RankedPlayStage.Lobby);
            await RefreshPlayerAsync(cancellationToken);
        }

        /// <summary>A rating change as players read it: <c>+12</c>, <c>-20</c>, <c>0</c>; one decimal when the ladder keeps fractions (<c>+11.7</c>).</summary>
        /// <param name="change">The change.</param>
        /// <returns>The text.</returns>
        public static string FormatChange(float change)
        {
            double rounded = Math.Round(change, 1, MidpointRounding.AwayFromZero);
            string text = rounded == Math.Round(rounded) ? rounded.ToString("0", System.Globalization.CultureInfo.InvariantCulture) : rounded.ToString("0.0", System.Globalization.CultureInfo.InvariantCulture);
            return rounded > 0 ? "+" + text : text == "-0" ? "0" : text;
        }

        /// <summary>The preview in one line: <c>+12 / +0 / -20</c> for a win, a draw and a loss.</summary>
        public string PreviewLine
        {
            get { return FormatChange(Preview.Win - MatchedRating) + " win / " + FormatChange(Preview.Draw - MatchedRating) + " draw / " + FormatChange(Preview.Loss - MatchedRating) + " loss"; }
        }

        /// <summary>Releases the HTTP connection.</summary>
        public void Dispose()
        {
            CancelSearch();
            if (client != null) client.Dispose();
        }

        private QueueMatch Found(QueueTicket done)
        {
            if (done.State != TicketState.Matched || done.Match == null)
            {
                Fail(done.State == TicketState.Expired ? "no match was found in time: try again" : "the search was cancelled");
                Set(RankedPlayStage.Lobby);
                return null;
            }
            Match = done.Match;
            int side = Match.SideOf(Player);
            QueueMatchPlayer me = Match.Sides[side][0];
            QueueMatchPlayer them = Match.Sides[1 - side][0];
            Opponent = them.Player;
            OpponentRating = them.Rating;
            MatchedRating = me.Rating;
            Preview = me.Preview.GetValueOrDefault();
            Set(RankedPlayStage.MatchFound);
            return Match;
        }

        /// <summary>
        /// Leaves the queue after a cancelled wait; a ticket matched meanwhile is shown instead.
        /// Best effort: when the server cannot be reached, the ticket expires on its own.
        /// </summary>
        private async Task LeaveQueueAsync()
        {
            string leaving = ticket;
            ticket = null;
            if (leaving == null) return;
            try
            {
                await client.CancelTicketAsync(ladder, queue, leaving);
            }
            catch (LadderException error)
            {
                if (error.Code != "ticket_not_waiting") return;
                try
                {
                    // Matched (or expired) between the last poll and the cancel: show the match.
                    Found(await client.GetTicketAsync(ladder, queue, leaving));
                }
                catch (LadderException)
                {
                    // Not reachable now: the match stays in the player's history once reported.
                }
            }
            catch (ObjectDisposedException)
            {
                // The screen closed and released the connection (outside Unity): the ticket expires.
            }
        }

        private RankedPlayOutcome Finish(double score, float after)
        {
            float promised = score == 1 ? Preview.Win : score == 0 ? Preview.Loss : Preview.Draw;
            Outcome = new RankedPlayOutcome { Score = score, RatingBefore = MatchedRating, RatingAfter = after, MatchesPreview = Same(after, promised) };
            Rating = after;
            Set(RankedPlayStage.Result);
            return Outcome;
        }

        private static bool Same(float a, float b)
        {
            return BitConverter.ToInt32(BitConverter.GetBytes(a), 0) == BitConverter.ToInt32(BitConverter.GetBytes(b), 0);
        }

        private void RequireSignedIn()
        {
            if (client == null) throw new InvalidOperationException("sign in first");
        }

        private static string Describe(LadderException error)
        {
            return error.Status == 0 ? "the server cannot be reached (" + error.Message + ")" : error.Message;
        }

        private bool Fail(string message)
        {
            Error = message;
            Raise();
            return false;
        }

        private void Set(RankedPlayStage stage)
        {
            Stage = stage;
            Raise();
        }

        private void Raise()
        {
            Action changed = Changed;
            if (changed != null) changed();
        }
    }
}
