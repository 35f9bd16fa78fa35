using System;
using System.Globalization;
using System.Text;
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
    /// servers report matches with a report key, game clients read players and
    /// leaderboards with a read key. Inside Unity it sends with <c>UnityWebRequest</c> (what
    /// works on WebGL); elsewhere (a .NET or Mono game server) with <c>HttpClient</c>.
    /// The server rates with the same engine as <see cref="EloRules"/>, so a preview
    /// computed here ("+12 if you win") is exactly what the server will store.
    /// </summary>
    public sealed class LadderClient : IDisposable
    {
        private readonly string baseUrl;
        private readonly string apiKey;
#if !UNITY_5_3_OR_NEWER
        private readonly HttpClient http = new HttpClient();
#endif

        /// <summary>A client of the server at <paramref name="baseUrl"/> using <paramref name="apiKey"/>.</summary>
        /// <param name="baseUrl">The server, e.g. <c>https://ladder.example.com</c> (no trailing path).</param>
        /// <param name="apiKey">An API key from <c>elo-ladder keys create</c>.</param>
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

        /// <summary>Reports a match between two players (applied once per <paramref name="matchId"/>: a retry gets the same answer).</summary>
        /// <param name="ladder">The ladder's name.</param>
        /// <param name="matchId">The match's id, unique in the ladder (1 to 64 of A-Z a-z 0-9 - _ . :).</param>
        /// <param name="playerA">Player A.</param>
        /// <param name="playerB">Player B.</param>
        /// <param name="scoreA">A's score: 1 win, 0.5 draw, 0 loss, or any value between.</param>
        /// <returns>The journal position and both players' new states.</returns>
        public Task<MatchReport> ReportMatchAsync(string ladder, string matchId, string playerA, string playerB, double scoreA)
        {
            var body = Begin(matchId).Append(",\"a\":");
            LadderJson.Quote(body, playerA);
            body.Append(",\"b\":");
            LadderJson.Quote(body, playerB);
            body.Append(",\"score_a\":").Append(scoreA.ToString("R", CultureInfo.InvariantCulture)).Append('}');
            return Report(ladder, body.ToString());
        }

        /// <summary>Reports a match between two teams of 1 to 64.</summary>
        /// <param name="ladder">The ladder's name.</param>
        /// <param name="matchId">The match's id, unique in the ladder.</param>
        /// <param name="teamA">Team A's players.</param>
        /// <param name="teamB">Team B's players.</param>
        /// <param name="scoreA">Team A's score: 1 win, 0.5 draw, 0 loss.</param>
        /// <returns>The journal position and every member's new state, team A first.</returns>
        public Task<MatchReport> ReportMatchAsync(string ladder, string matchId, string[] teamA, string[] teamB, double scoreA)
        {
            var body = Begin(matchId).Append(",\"team_a\":");
            LadderJson.Names(body, teamA);
            body.Append(",\"team_b\":");
            LadderJson.Names(body, teamB);
            body.Append(",\"score_a\":").Append(scoreA.ToString("R", CultureInfo.InvariantCulture)).Append('}');
            return Report(ladder, body.ToString());
        }

        /// <summary>Reports a free-for-all of 2 to 256 entrants.</summary>
        /// <param name="ladder">The ladder's name.</param>
        /// <param name="matchId">The match's id, unique in the ladder.</param>
        /// <param name="entrants">The entrants.</param>
        /// <param name="places">One place per entrant (1 = first; ties share a place).</param>
        /// <returns>The journal position and every entrant's new state, in the entrants' order.</returns>
        public Task<MatchReport> ReportMatchAsync(string ladder, string matchId, string[] entrants, int[] places)
        {
            var body = Begin(matchId).Append(",\"entrants\":");
            LadderJson.Names(body, entrants);
            body.Append(",\"places\":[");
            for (int i = 0; i < places.Length; i++)
            {
                body.Append(i > 0 ? "," : "").Append(places[i].ToString(CultureInfo.InvariantCulture));
            }
            body.Append("]}");
            return Report(ladder, body.ToString());
        }

        /// <summary>A player's current state and rank, or null when the ladder has no such player.</summary>
        /// <param name="ladder">The ladder's name.</param>
        /// <param name="player">The player's name.</param>
        /// <returns>The player, or null.</returns>
        public async Task<LadderPlayer> GetPlayerAsync(string ladder, string player)
        {
            try
            {
                return LadderPlayer.Read(LadderJson.Parse(await Send("GET", LadderPath(ladder) + "/players/" + Uri.EscapeDataString(player), null)));
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

        /// <summary>A page of the leaderboard, best first.</summary>
        /// <param name="ladder">The ladder's name.</param>
        /// <param name="limit">How many lines (1 to 1000).</param>
        /// <param name="offset">How many to skip from the top.</param>
        /// <returns>The lines.</returns>
        public async Task<LeaderboardEntry[]> GetLeaderboardAsync(string ladder, int limit = 100, int offset = 0)
        {
            string query = "?limit=" + limit.ToString(CultureInfo.InvariantCulture) + "&offset=" + offset.ToString(CultureInfo.InvariantCulture);
            return LeaderboardEntry.ReadAll(LadderJson.Parse(await Send("GET", LadderPath(ladder) + "/leaderboard" + query, null)));
        }

        /// <summary>Releases the HTTP connection (outside Unity).</summary>
        public void Dispose()
        {
#if !UNITY_5_3_OR_NEWER
            http.Dispose();
#endif
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

        private async Task<MatchReport> Report(string ladder, string body)
        {
            return MatchReport.Read(LadderJson.Parse(await Send("POST", LadderPath(ladder) + "/matches", body)));
        }

        /// <summary>The error the server sent, or one for a network failure.</summary>
        private static LadderException Failure(int status, string text)
        {
            try
            {
                var error = LadderJson.Object(LadderJson.Object(LadderJson.Parse(text), "the answer")["error"], "error");
                return new LadderException(status, LadderJson.String(error, "code"), LadderJson.String(error, "message"));
            }
            catch (Exception)
            {
                return new LadderException(status, "http_" + status.ToString(CultureInfo.InvariantCulture), text);
            }
        }

#if UNITY_5_3_OR_NEWER
        private async Task<string> Send(string method, string path, string body)
        {
            using (var request = new UnityWebRequest(baseUrl + path, method))
            {
                if (body != null)
                {
                    request.uploadHandler = new UploadHandlerRaw(Encoding.UTF8.GetBytes(body));
                    request.SetRequestHeader("Content-Type", "application/json");
                }
                request.downloadHandler = new DownloadHandlerBuffer();
                request.SetRequestHeader("Authorization", "Bearer " + apiKey);
                var done = new TaskCompletionSource<bool>();
                request.SendWebRequest().completed += operation => done.TrySetResult(true);
                await done.Task;
                if (request.result == UnityWebRequest.Result.ConnectionError)
                {
                    throw new LadderException(0, "unreachable", request.error);
                }
                int status = (int)request.responseCode;
                string text = request.downloadHandler.text;
                if (status < 200 || status >= 300)
                {
                    throw Failure(status, text);
                }
                return text;
            }
        }
#else
        private async Task<string> Send(string method, string path, string body)
        {
            using (var request = new HttpRequestMessage(new HttpMethod(method), baseUrl + path))
            {
                request.Headers.TryAddWithoutValidation("Authorization", "Bearer " + apiKey);
                if (body != null)
                {
                    request.Content = new StringContent(body, Encoding.UTF8, "application/json");
                }
                HttpResponseMessage response;
                try
                {
                    response = await http.SendAsync(request).ConfigureAwait(false);
                }
                catch (HttpRequestException error)
                {
                    throw new LadderException(0, "unreachable", error.Message);
                }
                using (response)
                {
                    string text = await response.Content.ReadAsStringAsync().ConfigureAwait(false);
                    int status = (int)response.StatusCode;
                    if (status < 200 || status >= 300)
                    {
                        throw Failure(status, text);
                    }
                    return text;
                }
            }
        }
#endif
    }
}
