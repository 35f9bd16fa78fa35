using System;
using System.Globalization;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
#if UNITY_5_3_OR_NEWER
using UnityEngine.Networking;
#else
using System.Net.Http;
#endif

namespace RankingElo.Ladder
{
    /// <summary>
    /// A client of the authoritative ladder server (<c>elo-ladder serve</c>): dedicated game
    /// servers report matches with a report key, game clients read with a read key (ladders
    /// and their rules, players, leaderboards and the lines around a player, a player's
    /// history, ended seasons' standings). Inside Unity it sends with <c>UnityWebRequest</c> (what
    /// works on WebGL; call it from the main thread); elsewhere (a .NET or Mono game server)
    /// with <c>HttpClient</c>, from any thread.
    /// The server rates with the same engine as <see cref="EloRules"/> and serves its rules
    /// (<see cref="GetLadderAsync"/>), so a preview computed here ("+12 if you win",
    /// <see cref="PreviewAsync"/>) is exactly what the server will store.
    /// </summary>
    /// <remarks>
    /// <para>Every call gives up after <see cref="Timeout"/> (10 s unless set; a call can pass
    /// its own) with a <see cref="LadderException"/> whose <see cref="LadderException.Code"/>
    /// is <c>timeout</c>, and stops early, with an <see cref="OperationCanceledException"/>,
    /// when its <see cref="CancellationToken"/> is cancelled.</para>
    /// <para>A match report is applied once per match id: sending the same report again after a
    /// timeout or a lost connection is safe, and <see cref="RetryAsync{T}"/> does it with
    /// backoff, for the failures worth retrying only (<see cref="LadderException.IsRetryable"/>).</para>
    /// </remarks>
    public sealed partial class LadderClient : IDisposable
    {
        /// <summary>The timeout of a call when <see cref="Timeout"/> is not set: 10 seconds.</summary>
        public static readonly TimeSpan DefaultTimeout = TimeSpan.FromSeconds(10);

        private readonly string baseUrl;
        private readonly string apiKey;
        private TimeSpan timeout = DefaultTimeout;
#if !UNITY_5_3_OR_NEWER
        private readonly HttpClient http = new HttpClient { Timeout = System.Threading.Timeout.InfiniteTimeSpan };
#endif

        /// <summary>A client of the server at <paramref name="baseUrl"/> using <paramref name="apiKey"/>.</summary>
        /// <param name="baseUrl">The server, e.g. <c>https://ladder.example.com</c> (no trailing path).</param>
        /// <param name="apiKey">An API key from <c>elo-ladder keys create</c>, or the player's token
        /// (a JWT from the studio's identity provider, when the server takes them: a token reads
        /// ladders, leaderboards, players, seasons and its own player's history).</param>
        public LadderClient(string baseUrl, string apiKey)
        {
            if (string.IsNullOrEmpty(baseUrl))
            {
                throw new ArgumentException("the server's address is required", "baseUrl");
            }
            if (string.IsNullOrEmpty(apiKey))
            {
                throw new ArgumentException("an API key is required", "apiKey");
            }
            this.baseUrl = baseUrl.TrimEnd('/');
            this.apiKey = apiKey;
        }

        /// <summary>
        /// How long a call waits for the server's whole answer before it fails with a
        /// <see cref="LadderException"/> whose <see cref="LadderException.Code"/> is
        /// <c>timeout</c> (<see cref="DefaultTimeout"/>, 10 s, unless set). Each call can pass its
        /// own. Inside Unity the request's timeout is in whole seconds (rounded up).
        /// </summary>
        /// <exception cref="ArgumentOutOfRangeException">Not positive, or longer than a day.</exception>
        public TimeSpan Timeout
        {
            get { return timeout; }
            set { timeout = CheckedTimeout(value, "value"); }
        }

        /// <summary>Reports a match between two players (applied once per <paramref name="matchId"/>: a retry gets the same answer).</summary>
        /// <param name="ladder">The ladder's name.</param>
        /// <param name="matchId">The match's id, unique in the ladder (1 to 64 of A-Z a-z 0-9 - _ . :).</param>
        /// <param name="playerA">Player A.</param>
        /// <param name="playerB">Player B.</param>
        /// <param name="scoreA">A's score: 1 win, 0.5 draw, 0 loss, or any value between.</param>
        /// <param name="timeout">This call's timeout instead of <see cref="Timeout"/>.</param>
        /// <param name="cancellationToken">Stops the call (it then throws <see cref="OperationCanceledException"/>).</param>
        /// <returns>The journal position and both players' new states.</returns>
        /// <exception cref="LadderException">The server refused the match, did not answer in time or could not be reached.</exception>
        public Task<MatchReport> ReportMatchAsync(string ladder, string matchId, string playerA, string playerB, double scoreA, TimeSpan? timeout = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            var body = Begin(matchId).Append(",\"a\":");
            LadderJson.Quote(body, playerA);
            body.Append(",\"b\":");
            LadderJson.Quote(body, playerB);
            body.Append(",\"score_a\":").Append(scoreA.ToString("R", CultureInfo.InvariantCulture)).Append('}');
            return Report(ladder, body.ToString(), timeout, cancellationToken);
        }

        /// <summary>Reports a match between two teams of 1 to 64 (applied once per <paramref name="matchId"/>).</summary>
        /// <param name="ladder">The ladder's name.</param>
        /// <param name="matchId">The match's id, unique in the ladder.</param>
        /// <param name="teamA">Team A's players.</param>
        /// <param name="teamB">Team B's players.</param>
        /// <param name="scoreA">Team A's score: 1 win, 0.5 draw, 0 loss.</param>
        /// <param name="timeout">This call's timeout instead of <see cref="Timeout"/>.</param>
        /// <param name="cancellationToken">Stops the call (it then throws <see cref="OperationCanceledException"/>).</param>
        /// <returns>The journal position and every member's new state, team A first.</returns>
        /// <exception cref="LadderException">The server refused the match, did not answer in time or could not be reached.</exception>
        public Task<MatchReport> ReportMatchAsync(string ladder, string matchId, string[] teamA, string[] teamB, double scoreA, TimeSpan? timeout = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            var body = Begin(matchId).Append(",\"team_a\":");
            LadderJson.Names(body, teamA);
            body.Append(",\"team_b\":");
            LadderJson.Names(body, teamB);
            body.Append(",\"score_a\":").Append(scoreA.ToString("R", CultureInfo.InvariantCulture)).Append('}');
            return Report(ladder, body.ToString(), timeout, cancellationToken);
        }

        /// <summary>Reports a free-for-all of 2 to 256 entrants (applied once per <paramref name="matchId"/>).</summary>
        /// <param name="ladder">The ladder's name.</param>
        /// <param name="matchId">The match's id, unique in the ladder.</param>
        /// <param name="entrants">The entrants.</param>
        /// <param name="places">One place per entrant (1 = first; ties share a place).</param>
        /// <param name="timeout">This call's timeout instead of <see cref="Timeout"/>.</param>
        /// <param name="cancellationToken">Stops the call (it then throws <see cref="OperationCanceledException"/>).</param>
        /// <returns>The journal position and every entrant's new state, in the entrants' order.</returns>
        /// <exception cref="LadderException">The server refused the match, did not answer in time or could not be reached.</exception>
        public Task<MatchReport> ReportMatchAsync(string ladder, string matchId, string[] entrants, int[] places, TimeSpan? timeout = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            var body = Begin(matchId).Append(",\"entrants\":");
            LadderJson.Names(body, entrants);
            body.Append(",\"places\":[");
            for (int i = 0; i < places.Length; i++)
            {
                body.Append(i > 0 ? "," : "").Append(places[i].ToString(CultureInfo.InvariantCulture));
            }
            body.Append("]}");
            return Report(ladder, body.ToString(), timeout, cancellationToken);
        }

        /// <summary>
        /// A player's current state and rank, or null for a player who has not played in this
        /// ladder yet. Such a player joins, at their first match, with the ladder's new-player
        /// state: <see cref="EloRules.NewPlayer"/> of the ladder's rules (in a zero-sum ladder,
        /// at the ladder's mean rating instead), so a preview uses
        /// <c>player != null ? player.State : rules.NewPlayer()</c>.
        /// </summary>
        /// <param name="ladder">The ladder's name.</param>
        /// <param name="player">The player's name.</param>
        /// <param name="timeout">This call's timeout instead of <see cref="Timeout"/>.</param>
        /// <param name="cancellationToken">Stops the call (it then throws <see cref="OperationCanceledException"/>).</param>
        /// <returns>The player, or null when the ladder has no such player yet.</returns>
        /// <exception cref="LadderException">The server refused the request (an unknown ladder, a key without read access), did not answer in time or could not be reached.</exception>
        public async Task<LadderPlayer> GetPlayerAsync(string ladder, string player, TimeSpan? timeout = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            try
            {
                return LadderPlayer.Read(LadderJson.Parse(await Send("GET", LadderPath(ladder) + "/players/" + Uri.EscapeDataString(player), null, timeout, cancellationToken)));
            }
            catch (LadderException error)
            {
                if (error.Code == "unknown_player")
                {
                    return null;
                }
                throw;
            }
        }

        /// <summary>The query's <c>provisional</c> part: <c>&amp;provisional=include</c>, or nothing (the server's default leaves them out).</summary>
        private static string ProvisionalQuery(bool includeProvisional)
        {
            return includeProvisional ? "&provisional=include" : "";
        }

        /// <summary>A page of the leaderboard, best first.</summary>
        /// <param name="ladder">The ladder's name.</param>
        /// <param name="limit">How many lines (1 to 1000).</param>
        /// <param name="offset">How many to skip from the top.</param>
        /// <param name="includeProvisional">Also the provisional players (the ladder's <c>provisional_games</c>), ranked among everybody and marked <see cref="LeaderboardEntry.Provisional"/>; they are left out otherwise.</param>
        /// <param name="timeout">This call's timeout instead of <see cref="Timeout"/>.</param>
        /// <param name="cancellationToken">Stops the call (it then throws <see cref="OperationCanceledException"/>).</param>
        /// <returns>The lines.</returns>
        /// <exception cref="LadderException">The server refused the request, did not answer in time or could not be reached.</exception>
        public async Task<LeaderboardEntry[]> GetLeaderboardAsync(string ladder, int limit = 100, int offset = 0, bool includeProvisional = false, TimeSpan? timeout = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            string query = "?limit=" + limit.ToString(CultureInfo.InvariantCulture) + "&offset=" + offset.ToString(CultureInfo.InvariantCulture) + ProvisionalQuery(includeProvisional);
            return LeaderboardEntry.ReadAll(LadderJson.Parse(await Send("GET", LadderPath(ladder) + "/leaderboard" + query, null, timeout, cancellationToken)));
        }

        /// <summary>The ladders this client's key may see (a key limited to one ladder sees that one), with their size, season and schedule.</summary>
        /// <param name="timeout">This call's timeout instead of <see cref="Timeout"/>.</param>
        /// <param name="cancellationToken">Stops the call (it then throws <see cref="OperationCanceledException"/>).</param>
        /// <returns>The ladders, by name.</returns>
        /// <exception cref="LadderException">The server refused the request, did not answer in time or could not be reached.</exception>
        public async Task<LadderSummary[]> ListLaddersAsync(TimeSpan? timeout = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            return LadderSummary.ReadAll(LadderJson.Parse(await Send("GET", "/v1/ladders", null, timeout, cancellationToken)));
        }

        /// <summary>
        /// One ladder: its size, season, schedule and next scheduled times, and the rules the
        /// server rates it with now (<see cref="LadderInfo.RulesJson"/>, the engine's
        /// canonical configuration; <see cref="LadderInfo.CreateRules"/> makes the
        /// <see cref="EloRules"/> that preview exactly as the server rates), so a game needs no
        /// rules baked into its build.
        /// </summary>
        /// <param name="ladder">The ladder's name.</param>
        /// <param name="timeout">This call's timeout instead of <see cref="Timeout"/>.</param>
        /// <param name="cancellationToken">Stops the call (it then throws <see cref="OperationCanceledException"/>).</param>
        /// <returns>The ladder.</returns>
        /// <exception cref="LadderException">The server refused the request (an unknown ladder, a key without read access to it), did not answer in time or could not be reached.</exception>
        public async Task<LadderInfo> GetLadderAsync(string ladder, TimeSpan? timeout = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            return LadderInfo.Read(await Send("GET", LadderPath(ladder), null, timeout, cancellationToken));
        }

        /// <summary>
        /// "+12 if you win" in one call: reads the ladder's rules and both players' current
        /// states from the server (three requests at once, each within the timeout) and rates
        /// the match here with the engine, as <see cref="LadderInfo.Preview"/> does. A player
        /// who has not played in the ladder yet starts from the ladder's new-player state.
        /// </summary>
        /// <remarks>
        /// The preview is the server's result bit for bit when nothing changes either player or
        /// the rules between these reads and the report: no other match of either player (nor
        /// a season end, a decay, or an annulment or correction of their matches) lands in
        /// between; other players' matches do not matter (<see cref="MatchPreview"/> says it in
        /// full, with the zero-sum exception). <see cref="MatchPreview.WithScore"/> gives the other
        /// results without reading again.
        /// </remarks>
        /// <param name="ladder">The ladder's name.</param>
        /// <param name="playerA">Player A.</param>
        /// <param name="playerB">Player B.</param>
        /// <param name="scoreA">A's score: 1 win, 0.5 draw, 0 loss, or any value between (rated as the nearest <c>float</c>, as the server rates it).</param>
        /// <param name="timeout">Each request's timeout instead of <see cref="Timeout"/>.</param>
        /// <param name="cancellationToken">Stops the call (it then throws <see cref="OperationCanceledException"/>).</param>
        /// <returns>Both players' states before and after.</returns>
        /// <exception cref="ArgumentOutOfRangeException"><paramref name="scoreA"/> is not from 0 to 1.</exception>
        /// <exception cref="ArgumentException">Both are the same player.</exception>
        /// <exception cref="LadderException">The server refused a read (an unknown ladder, a key without read access), did not answer in time or could not be reached.</exception>
        public async Task<MatchPreview> PreviewAsync(string ladder, string playerA, string playerB, double scoreA, TimeSpan? timeout = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            MatchPreview.EngineScore(scoreA);
            if (playerA == playerB)
            {
                throw new ArgumentException("a player cannot play against themself: " + playerA, "playerB");
            }
            Task<LadderInfo> info = GetLadderAsync(ladder, timeout, cancellationToken);
            Task<LadderPlayer> a = GetPlayerAsync(ladder, playerA, timeout, cancellationToken);
            Task<LadderPlayer> b = GetPlayerAsync(ladder, playerB, timeout, cancellationToken);
            await Task.WhenAll(info, a, b);
            return MatchPreview.Compute(info.Result, a.Result, b.Result, scoreA);
        }

        /// <summary>
        /// The leaderboard around a player: <paramref name="limit"/> lines centred on them
        /// (fewer at the top and the bottom), best first, with exact ranks, read in one snapshot.
        /// </summary>
        /// <param name="ladder">The ladder's name.</param>
        /// <param name="player">The player in the middle.</param>
        /// <param name="limit">How many lines (1 to 1000; 21 unless given: ten above, ten below).</param>
        /// <param name="includeProvisional">The board with the provisional players (then a provisional player can be centred on).</param>
        /// <param name="timeout">This call's timeout instead of <see cref="Timeout"/>.</param>
        /// <param name="cancellationToken">Stops the call (it then throws <see cref="OperationCanceledException"/>).</param>
        /// <returns>The lines, or an empty array for a player who has not played in the ladder yet.</returns>
        /// <exception cref="LadderException">The server refused the request (an unknown ladder, a limit out of range, a provisional player, who is on no board yet: <c>provisional_player</c>, 409), did not answer in time or could not be reached.</exception>
        public async Task<LeaderboardEntry[]> GetLeaderboardAroundAsync(string ladder, string player, int limit = 21, bool includeProvisional = false, TimeSpan? timeout = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            string query = "?around=" + Uri.EscapeDataString(player) + "&limit=" + limit.ToString(CultureInfo.InvariantCulture) + ProvisionalQuery(includeProvisional);
            try
            {
                return LeaderboardEntry.ReadAll(LadderJson.Parse(await Send("GET", LadderPath(ladder) + "/leaderboard" + query, null, timeout, cancellationToken)));
            }
            catch (LadderException error)
            {
                if (error.Code == "unknown_player")
                {
                    return new LeaderboardEntry[0];
                }
                throw;
            }
        }

        /// <summary>
        /// A page of a player's history, newest first: each journal entry that changed them
        /// (their matches, season ends, decay), with their rating before and after and whether
        /// an admin annulled the match. Page back with the answer's
        /// <see cref="HistoryPage.Before"/>:
        /// <c>for (var page = await c.GetHistoryAsync(l, p); ; page = await c.GetHistoryAsync(l, p, page.Before)) { …; if (page.Before == null) break; }</c>.
        /// </summary>
        /// <param name="ladder">The ladder's name.</param>
        /// <param name="player">The player's name.</param>
        /// <param name="before">Only entries older than this <c>seq</c> (the previous page's <see cref="HistoryPage.Before"/>); null for the newest.</param>
        /// <param name="limit">How many entries (1 to 1000; 20 unless given).</param>
        /// <param name="timeout">This call's timeout instead of <see cref="Timeout"/>.</param>
        /// <param name="cancellationToken">Stops the call (it then throws <see cref="OperationCanceledException"/>).</param>
        /// <returns>The page; empty, with <see cref="HistoryPage.Before"/> null, for a player who has not played in the ladder yet.</returns>
        /// <exception cref="LadderException">The server refused the request (an unknown ladder, a limit out of range), did not answer in time or could not be reached.</exception>
        public async Task<HistoryPage> GetHistoryAsync(string ladder, string player, long? before = null, int limit = 20, TimeSpan? timeout = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            string query = "?limit=" + limit.ToString(CultureInfo.InvariantCulture);
            if (before.HasValue)
            {
                query += "&before=" + before.Value.ToString(CultureInfo.InvariantCulture);
            }
            try
            {
                return HistoryPage.Read(LadderJson.Parse(await Send("GET", LadderPath(ladder) + "/players/" + Uri.EscapeDataString(player) + "/matches" + query, null, timeout, cancellationToken)));
            }
            catch (LadderException error)
            {
                if (error.Code == "unknown_player")
                {
                    return HistoryPage.Empty;
                }
                throw;
            }
        }

        /// <summary>The ladder's ended seasons, oldest first (empty before the first season end).</summary>
        /// <param name="ladder">The ladder's name.</param>
        /// <param name="timeout">This call's timeout instead of <see cref="Timeout"/>.</param>
        /// <param name="cancellationToken">Stops the call (it then throws <see cref="OperationCanceledException"/>).</param>
        /// <returns>The ended seasons.</returns>
        /// <exception cref="LadderException">The server refused the request, did not answer in time or could not be reached.</exception>
        public async Task<LadderSeason[]> GetSeasonsAsync(string ladder, TimeSpan? timeout = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            return LadderSeason.ReadAll(LadderJson.Parse(await Send("GET", LadderPath(ladder) + "/seasons", null, timeout, cancellationToken)));
        }

        /// <summary>A page of an ended season's final standings, best first, as kept at its end (later matches do not change them).</summary>
        /// <param name="ladder">The ladder's name.</param>
        /// <param name="season">The season's number (from 1; <see cref="LadderSeason.Season"/>).</param>
        /// <param name="limit">How many lines (1 to 1000).</param>
        /// <param name="offset">How many to skip from the top.</param>
        /// <param name="timeout">This call's timeout instead of <see cref="Timeout"/>.</param>
        /// <param name="cancellationToken">Stops the call (it then throws <see cref="OperationCanceledException"/>).</param>
        /// <returns>The lines.</returns>
        /// <exception cref="LadderException">The server refused the request (a season that has not ended: <c>unknown_season</c>, 404), did not answer in time or could not be reached.</exception>
        public async Task<SeasonStanding[]> GetSeasonStandingsAsync(string ladder, long season, int limit = 100, int offset = 0, TimeSpan? timeout = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            string path = LadderPath(ladder) + "/seasons/" + season.ToString(CultureInfo.InvariantCulture) + "/leaderboard"
                + "?limit=" + limit.ToString(CultureInfo.InvariantCulture) + "&offset=" + offset.ToString(CultureInfo.InvariantCulture);
            return SeasonStanding.ReadAll(LadderJson.Parse(await Send("GET", path, null, timeout, cancellationToken)));
        }

        /// <summary>
        /// Runs <paramref name="call"/> and, when it fails in a way worth retrying
        /// (<see cref="LadderException.IsRetryable"/>: a timeout, a connection error, a 429 with
        /// <c>Retry-After</c>, a 5xx), runs it again after a wait, up to
        /// <see cref="LadderRetryPolicy.MaxAttempts"/> attempts. Any other failure, and the last
        /// attempt's, is thrown as it is; a cancelled <paramref name="cancellationToken"/> stops
        /// the waits and the calls.
        /// </summary>
        /// <remarks>
        /// <para>The wait doubles from <see cref="LadderRetryPolicy.FirstDelay"/> up to
        /// <see cref="LadderRetryPolicy.MaxDelay"/>, each a random time between half of it and
        /// all of it (so a crowd of game servers does not retry in step); after a 429 it is the
        /// server's <c>Retry-After</c> when that is longer.</para>
        /// <para>Give a match report its id once, outside the call: every attempt then sends the
        /// same id, and the server applies the match exactly once however many attempts reached
        /// it (a retry of a match it applied gets the original answer).</para>
        /// <code>
        /// string matchId = "match-" + serverMatchNumber;             // once per match
        /// MatchReport report = await LadderClient.RetryAsync(
        ///     token => server.ReportMatchAsync("ranked", matchId, "alice", "bob", 1.0, cancellationToken: token),
        ///     new LadderRetryPolicy { MaxAttempts = 8 }, shutdownToken);
        /// </code>
        /// </remarks>
        /// <typeparam name="T">What the call returns.</typeparam>
        /// <param name="call">The call; it receives the token to pass on.</param>
        /// <param name="policy">Attempts and waits (null: <see cref="LadderRetryPolicy"/>'s defaults).</param>
        /// <param name="cancellationToken">Stops the retries (then <see cref="OperationCanceledException"/>).</param>
        /// <returns>The first successful result.</returns>
        /// <exception cref="LadderException">The last attempt's failure, or the first failure not worth retrying.</exception>
        public static async Task<T> RetryAsync<T>(Func<CancellationToken, Task<T>> call, LadderRetryPolicy policy = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            if (call == null)
            {
                throw new ArgumentNullException("call");
            }
            policy = policy ?? new LadderRetryPolicy();
            for (int attempt = 1; ; attempt++)
            {
                cancellationToken.ThrowIfCancellationRequested();
                try
                {
                    return await call(cancellationToken);
                }
                catch (LadderException error) when (error.IsRetryable && attempt < policy.MaxAttempts && !cancellationToken.IsCancellationRequested)
                {
                    TimeSpan wait = policy.Wait(attempt, error);
                    if (policy.OnRetry != null)
                    {
                        policy.OnRetry(attempt, error, wait);
                    }
                    await Wait(wait, cancellationToken);
                }
            }
        }

        /// <summary>
        /// Waits between retries. Inside Unity, on a thread with a synchronization context
        /// (the main thread), it waits on the player loop: it checks the clock once a frame
        /// (<c>Task.Yield</c> resumes on the next frame), because a Web build has no thread for
        /// <c>Task.Delay</c>'s timer. Elsewhere, <c>Task.Delay</c>.
        /// </summary>
        private static async Task Wait(TimeSpan wait, CancellationToken cancellationToken)
        {
#if UNITY_5_3_OR_NEWER
            if (SynchronizationContext.Current != null)
            {
                long until = System.Diagnostics.Stopwatch.GetTimestamp() + (long)(wait.TotalSeconds * System.Diagnostics.Stopwatch.Frequency);
                while (System.Diagnostics.Stopwatch.GetTimestamp() < until)
                {
                    cancellationToken.ThrowIfCancellationRequested();
                    await Task.Yield();
                }
                cancellationToken.ThrowIfCancellationRequested();
                return;
            }
#endif
            await Task.Delay(wait, cancellationToken);
        }

        /// <summary>Releases the HTTP connection (outside Unity).</summary>
        public void Dispose()
        {
#if !UNITY_5_3_OR_NEWER
            http.Dispose();
#endif
        }

        private static TimeSpan CheckedTimeout(TimeSpan value, string name)
        {
            if (value <= TimeSpan.Zero || value > TimeSpan.FromDays(1))
            {
                throw new ArgumentOutOfRangeException(name, value, "a timeout must be positive and at most a day");
            }
            return value;
        }

        private TimeSpan Limit(TimeSpan? callTimeout)
        {
            return callTimeout.HasValue ? CheckedTimeout(callTimeout.Value, "timeout") : timeout;
        }

        private static StringBuilder Begin(string matchId)
        {
            var body = new StringBuilder("{\"id\":");
            LadderJson.Quote(body, matchId);
            return body;
        }

        private static string LadderPath(string ladder)
        {
            return "/v1/ladders/" + Uri.EscapeDataString(ladder);
        }

        private async Task<MatchReport> Report(string ladder, string body, TimeSpan? timeout, CancellationToken cancellationToken)
        {
            return MatchReport.Read(LadderJson.Parse(await Send("POST", LadderPath(ladder) + "/matches", body, timeout, cancellationToken)));
        }

        /// <summary>The error the server sent, or one for a network failure.</summary>
        private static LadderException Failure(int status, string text, TimeSpan? retryAfter)
        {
            try
            {
                var error = LadderJson.Object(LadderJson.Object(LadderJson.Parse(text), "the answer")["error"], "error");
                return new LadderException(status, LadderJson.String(error, "code"), LadderJson.String(error, "message"), retryAfter);
            }
            catch (Exception)
            {
                return new LadderException(status, "http_" + status.ToString(CultureInfo.InvariantCulture), text, retryAfter);
            }
        }

        private LadderException TimedOut(TimeSpan limit)
        {
            return new LadderException(0, "timeout", "no answer from " + baseUrl + " within " + limit.TotalSeconds.ToString("0.###", CultureInfo.InvariantCulture) + " s");
        }

        /// <summary>A <c>Retry-After</c> header's wait: seconds, or an HTTP date.</summary>
        internal static TimeSpan? ParseRetryAfter(string value, DateTimeOffset now)
        {
            if (string.IsNullOrEmpty(value))
            {
                return null;
            }
            int seconds;
            if (int.TryParse(value.Trim(), NumberStyles.None, CultureInfo.InvariantCulture, out seconds))
            {
                return TimeSpan.FromSeconds(seconds);
            }
            DateTimeOffset when;
            if (DateTimeOffset.TryParseExact(value.Trim(), "r", CultureInfo.InvariantCulture, DateTimeStyles.AssumeUniversal, out when))
            {
                return when > now ? when - now : TimeSpan.Zero;
            }
            return null;
        }

#if UNITY_5_3_OR_NEWER
        private async Task<string> Send(string method, string path, string body, TimeSpan? callTimeout, CancellationToken cancellationToken)
        {
            TimeSpan limit = Limit(callTimeout);
            cancellationToken.ThrowIfCancellationRequested();
            UnityWebRequest request;
            try
            {
                request = new UnityWebRequest(baseUrl + path, method);
            }
            catch (UnityEngine.UnityException error) when (error.Message.Contains("main thread"))
            {
                throw new InvalidOperationException(
                    "LadderClient sends with UnityWebRequest inside Unity, which works on the main thread only: call it from the main thread "
                    + "(a MonoBehaviour, a coroutine, or an async method started there without ConfigureAwait(false)), not from Task.Run or a thread of your own.",
                    error);
            }
            using (request)
            {
                if (body != null)
                {
                    request.uploadHandler = new UploadHandlerRaw(Encoding.UTF8.GetBytes(body));
                    request.SetRequestHeader("Content-Type", "application/json");
                }
                request.downloadHandler = new DownloadHandlerBuffer();
                request.SetRequestHeader("Authorization", "Bearer " + apiKey);
                request.timeout = (int)Math.Ceiling(limit.TotalSeconds);
                var done = new TaskCompletionSource<bool>();
                request.SendWebRequest().completed += operation => done.TrySetResult(true);
                // The abort runs on the main thread (the context this call started on).
                using (cancellationToken.Register(() => request.Abort(), true))
                {
                    await done.Task;
                }
                cancellationToken.ThrowIfCancellationRequested();
                int status = (int)request.responseCode;
                switch (request.result)
                {
                    case UnityWebRequest.Result.ConnectionError:
                        if (request.error != null && request.error.IndexOf("timeout", StringComparison.OrdinalIgnoreCase) >= 0)
                        {
                            throw TimedOut(limit);
                        }
                        throw new LadderException(0, "unreachable", request.error);
                    case UnityWebRequest.Result.DataProcessingError:
                        throw new LadderException(status, "bad_response", "the server's answer could not be read: " + request.error);
                }
                string text = request.downloadHandler.text;
                if (status < 200 || status >= 300)
                {
                    throw Failure(status, text, ParseRetryAfter(request.GetResponseHeader("Retry-After"), DateTimeOffset.UtcNow));
                }
                return text;
            }
        }
#else
        private async Task<string> Send(string method, string path, string body, TimeSpan? callTimeout, CancellationToken cancellationToken)
        {
            TimeSpan limit = Limit(callTimeout);
            cancellationToken.ThrowIfCancellationRequested();
            using (var timer = new CancellationTokenSource(limit))
            using (var either = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken, timer.Token))
            using (var request = new HttpRequestMessage(new HttpMethod(method), baseUrl + path))
            {
                request.Headers.TryAddWithoutValidation("Authorization", "Bearer " + apiKey);
                if (body != null)
                {
                    request.Content = new StringContent(body, Encoding.UTF8, "application/json");
                }
                try
                {
                    // The whole answer is read before SendAsync returns, within the timeout.
                    using (HttpResponseMessage response = await http.SendAsync(request, HttpCompletionOption.ResponseContentRead, either.Token).ConfigureAwait(false))
                    {
                        string text = await response.Content.ReadAsStringAsync().ConfigureAwait(false);
                        int status = (int)response.StatusCode;
                        if (status < 200 || status >= 300)
                        {
                            throw Failure(status, text, RetryAfter(response));
                        }
                        return text;
                    }
                }
                catch (OperationCanceledException error)
                {
                    if (cancellationToken.IsCancellationRequested)
                    {
                        throw new OperationCanceledException("the call to " + baseUrl + " was cancelled", error, cancellationToken);
                    }
                    throw TimedOut(limit);
                }
                catch (HttpRequestException error)
                {
                    if (cancellationToken.IsCancellationRequested)
                    {
                        throw new OperationCanceledException("the call to " + baseUrl + " was cancelled", error, cancellationToken);
                    }
                    if (timer.IsCancellationRequested)
                    {
                        throw TimedOut(limit);
                    }
                    throw new LadderException(0, "unreachable", error.InnerException != null ? error.Message + ": " + error.InnerException.Message : error.Message);
                }
            }
        }

        private static TimeSpan? RetryAfter(HttpResponseMessage response)
        {
            var header = response.Headers.RetryAfter;
            if (header == null)
            {
                return null;
            }
            if (header.Delta.HasValue)
            {
                return header.Delta;
            }
            return header.Date.HasValue ? ParseRetryAfter(header.Date.Value.ToString("r", CultureInfo.InvariantCulture), DateTimeOffset.UtcNow) : null;
        }
#endif
    }
}
