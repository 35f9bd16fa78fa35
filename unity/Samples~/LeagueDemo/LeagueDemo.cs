using System.Globalization;
using UnityEngine;

namespace RankingElo.Samples
{
    /// <summary>
    /// League Demo: a population with hidden skills plays rated matches; the leaderboard and a
    /// scatter of rating against skill update on screen (IMGUI, no assets needed).
    /// </summary>
    public sealed class LeagueDemo : MonoBehaviour
    {
        /// <summary>Number of players.</summary>
        [SerializeField] private int players = 40;

        /// <summary>Seed of skills and results.</summary>
        [SerializeField] private int seed = 2025;

        /// <summary>Matches played by the "Play many" button.</summary>
        [SerializeField] private int batchSize = 200;

        private Population population;

        private static readonly Color[] LeagueColors =
        {
            new Color(0.80f, 0.50f, 0.20f), new Color(0.75f, 0.75f, 0.80f), new Color(1.00f, 0.84f, 0.00f), new Color(0.55f, 0.90f, 1.00f),
        };

        private void OnEnable()
        {
            population = new Population(players, seed);
        }

        private void OnDisable()
        {
            if (population != null) population.Dispose();
            population = null;
        }

        private void OnGUI()
        {
            if (population == null) return;
            GUILayout.BeginArea(new Rect(10, 10, 330, Screen.height - 20));
            GUILayout.Label("Ranking ELO — League Demo (" + population.MatchesPlayed + " matches)");
            GUILayout.BeginHorizontal();
            if (GUILayout.Button("Play 1 match")) population.PlayMatch();
            if (GUILayout.Button("Play " + batchSize)) population.PlayMatches(batchSize);
            if (GUILayout.Button("Reset")) population.Reset();
            GUILayout.EndHorizontal();
            DrawLeaderboard();
            GUILayout.EndArea();
            DrawScatter(new Rect(350, 10, Screen.width - 360, Screen.height - 20));
        }

        private void DrawLeaderboard()
        {
            int[] ranking = population.Ranking();
            var members = population.Members;
            int[] counts = population.LeagueCounts();
            GUILayout.Label(string.Format(CultureInfo.InvariantCulture, "Bronze {0}  Silver {1}  Gold {2}  Platinum {3}", counts[0], counts[1], counts[2], counts[3]));
            for (int place = 0; place < Mathf.Min(15, ranking.Length); place++)
            {
                Population.Member m = members[ranking[place]];
                string league = Population.LeagueNames[population.LeagueOfPlayer(ranking[place])];
                GUILayout.Label(string.Format(CultureInfo.InvariantCulture, "{0,2}. {1,-10} {2,7:F0}  skill {3,5:F0}  {4}",
                    place + 1, m.Name, m.State.Rating, m.Skill, league));
            }
        }

        private void DrawScatter(Rect area)
        {
            GUI.Box(area, "Rating (vertical) against hidden skill (horizontal)");
            const float low = 700f, high = 2100f;
            Color previous = GUI.color;
            var members = population.Members;
            for (int i = 0; i < members.Count; i++)
            {
                Population.Member m = members[i];
                float x = area.x + (m.Skill - low) / (high - low) * area.width;
                float y = area.y + area.height - (m.State.Rating - low) / (high - low) * area.height;
                GUI.color = LeagueColors[population.LeagueOfPlayer(i)];
                GUI.DrawTexture(new Rect(x - 3, y - 3, 6, 6), Texture2D.whiteTexture);
            }
            GUI.color = previous;
        }
    }
}
