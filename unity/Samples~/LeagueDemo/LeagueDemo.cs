using System.Globalization;
using UnityEngine;

namespace RankingElo.Samples
{
    /// <summary>
    /// League Demo: a population with hidden skills plays rated matches in seasons. The screen shows a
    /// leaderboard in aligned columns, the leagues' colours with a legend and counts, a scatter
    /// of rating against hidden skill, and the top players' ratings over time, all drawn with
    /// IMGUI (no assets, no extra package), with the latest promotion or demotion and an "End
    /// season" button (records, then the soft reset). The view is refreshed only when matches are played,
    /// into buffers made once, so drawing allocates nothing per GUI event.
    /// </summary>
    public sealed class LeagueDemo : MonoBehaviour
    {
        /// <summary>Number of players.</summary>
        [SerializeField] private int players = 40;

        /// <summary>Seed of skills and results.</summary>
        [SerializeField] private int seed = 2025;

        /// <summary>Matches played by the "Play many" button.</summary>
        [SerializeField] private int batchSize = 200;

        private const int Shown = 15;
        private const int Tracked = 5;
        private const int HistoryLength = 120;

        private static readonly Color[] LeagueColors =
        {
            new Color(0.80f, 0.50f, 0.20f), new Color(0.75f, 0.75f, 0.80f), new Color(1.00f, 0.84f, 0.00f), new Color(0.55f, 0.90f, 1.00f),
        };

        private static readonly Color[] TrackColors =
        {
            new Color(1f, 0.35f, 0.35f), new Color(0.35f, 1f, 0.45f), new Color(0.40f, 0.60f, 1f), new Color(1f, 0.85f, 0.30f), new Color(0.90f, 0.45f, 1f),
        };

        private Population population;

        // The view: filled by Refresh() after each change, read by OnGUI.
        private float[] ratings;
        private int[] leagues;
        private int[] ranking;
        private int[] leagueCounts;
        private int ranked;
        private string[] rows;
        private string[] legend;
        private string title;
        private string playManyLabel;
        private string news;
        private readonly int[] trackedPlayers = new int[Tracked];
        private readonly float[,] history = new float[Tracked, HistoryLength];
        private int historyCount;

        private void OnEnable()
        {
            population = new Population(players, seed);
            ratings = new float[players];
            leagues = new int[players];
            ranking = new int[Shown];
            leagueCounts = new int[Population.LeagueNames.Length];
            rows = new string[Shown];
            legend = new string[Population.LeagueNames.Length];
            historyCount = 0;
            playManyLabel = "Play " + batchSize;
            Refresh();
        }

        private void OnDisable()
        {
            if (population != null) population.Dispose();
            population = null;
        }

        /// <summary>Reads the pool into the view's buffers and rebuilds the text (only after a change).</summary>
        private void Refresh()
        {
            ranked = population.Fill(ratings, leagues, ranking, leagueCounts);
            for (int place = 0; place < ranked; place++)
            {
                int i = ranking[place];
                rows[place] = string.Format(CultureInfo.InvariantCulture, "{0,2}  Player {1,-3}  {2,6:F0}  {3,6:F0}  {4}",
                    place + 1, i + 1, ratings[i], population.SkillOf(i), Population.LeagueNames[leagues[i]]);
            }
            for (int league = 0; league < legend.Length; league++)
            {
                legend[league] = Population.LeagueNames[league] + " " + leagueCounts[league];
            }
            title = "Ranking ELO - League Demo (season " + (population.SeasonsEnded + 1) + ", " + population.MatchesPlayed + " matches)";
            if (population.LastLeagueChange != null) news = population.LastLeagueChange + "!";
            if (historyCount == 0)
            {
                for (int t = 0; t < Tracked && t < ranked; t++) trackedPlayers[t] = ranking[t];
            }
            if (historyCount == HistoryLength)
            {
                for (int t = 0; t < Tracked; t++)
                    for (int h = 1; h < HistoryLength; h++) history[t, h - 1] = history[t, h];
                historyCount--;
            }
            for (int t = 0; t < Tracked; t++) history[t, historyCount] = ratings[trackedPlayers[t]];
            historyCount++;
        }

        private void OnGUI()
        {
            if (population == null) return;
            GUILayout.BeginArea(new Rect(10, 10, 360, Screen.height - 20));
            GUILayout.Label(title);
            GUILayout.BeginHorizontal();
            bool changed = false;
            if (GUILayout.Button("Play 1 match")) changed = population.PlayMatch();
            if (GUILayout.Button(playManyLabel)) changed = population.PlayMatches(batchSize) > 0;
            if (GUILayout.Button("End season"))
            {
                SeasonRecord[] records = population.EndSeason();
                int top = 0;
                for (int i = 1; i < records.Length; i++)
                    if (records[i].PeakRating > records[top].PeakRating) top = i;
                news = "Season " + population.SeasonsEnded + " ended: best peak Player " + (top + 1) + " (" + records[top].PeakRating.ToString("F0", CultureInfo.InvariantCulture) + "); ratings reset halfway";
                changed = true;
            }
            if (GUILayout.Button("Reset"))
            {
                population.Reset();
                historyCount = 0;
                news = null;
                changed = true;
            }
            GUILayout.EndHorizontal();
            if (news != null) GUILayout.Label(news);
            DrawLegend();
            GUILayout.Label(" #  player       rating   skill  league");
            for (int place = 0; place < ranked; place++)
            {
                GUI.color = LeagueColors[leagues[ranking[place]]];
                GUILayout.Label(rows[place]);
            }
            GUI.color = Color.white;
            GUILayout.EndArea();
            float right = Screen.width - 390;
            DrawScatter(new Rect(380, 10, right, (Screen.height - 30) * 0.6f));
            DrawHistory(new Rect(380, 20 + (Screen.height - 30) * 0.6f, right, (Screen.height - 30) * 0.4f));
            if (changed) Refresh();
        }

        private void DrawLegend()
        {
            GUILayout.BeginHorizontal();
            for (int league = 0; league < legend.Length; league++)
            {
                GUI.color = LeagueColors[league];
                GUILayout.Label(legend[league]);
            }
            GUI.color = Color.white;
            GUILayout.EndHorizontal();
        }

        private void DrawScatter(Rect area)
        {
            GUI.Box(area, "Rating (vertical) against hidden skill (horizontal), 700 to 2100");
            const float low = 700f, high = 2100f;
            for (int i = 0; i < ratings.Length; i++)
            {
                float x = area.x + (population.SkillOf(i) - low) / (high - low) * area.width;
                float y = area.y + area.height - (ratings[i] - low) / (high - low) * area.height;
                GUI.color = LeagueColors[leagues[i]];
                GUI.DrawTexture(new Rect(x - 3, y - 3, 6, 6), Texture2D.whiteTexture);
            }
            GUI.color = Color.white;
        }

        /// <summary>The first leaders' ratings after each refresh (the last 120), one colour per player.</summary>
        private void DrawHistory(Rect area)
        {
            GUI.Box(area, "Rating over time: the leaders when the season started");
            if (historyCount < 2) return;
            float low = float.MaxValue, high = float.MinValue;
            for (int t = 0; t < Tracked; t++)
                for (int h = 0; h < historyCount; h++)
                {
                    low = Mathf.Min(low, history[t, h]);
                    high = Mathf.Max(high, history[t, h]);
                }
            float span = Mathf.Max(high - low, 1f);
            for (int t = 0; t < Tracked; t++)
            {
                GUI.color = TrackColors[t];
                for (int h = 0; h < historyCount; h++)
                {
                    float x = area.x + 4 + h * (area.width - 8) / (HistoryLength - 1);
                    float y = area.y + area.height - 6 - (history[t, h] - low) / span * (area.height - 24);
                    GUI.DrawTexture(new Rect(x - 1.5f, y - 1.5f, 3, 3), Texture2D.whiteTexture);
                }
            }
            GUI.color = Color.white;
        }
    }
}
