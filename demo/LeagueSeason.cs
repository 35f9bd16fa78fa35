// The main job's console demo: a short league season through the C# wrapper on Mono
// (matchmaker, rating pool, leagues with a demotion margin, promotion news, the season's end
// with its records and soft reset), using the same model as the Unity sample scene
// (unity/Samples~/LeagueDemo/Population.cs).
using System;
using System.Globalization;
using RankingElo;
using RankingElo.Samples;

internal static class LeagueSeason
{
    private static int Main(string[] args)
    {
        CultureInfo.DefaultThreadCurrentCulture = CultureInfo.InvariantCulture;
        int players = args.Length > 0 ? int.Parse(args[0], CultureInfo.InvariantCulture) : 12;
        int weeks = args.Length > 1 ? int.Parse(args[1], CultureInfo.InvariantCulture) : 4;
        const int matchesPerWeek = 60;

        Console.WriteLine("The tutorial's calls, unchanged:");
        Console.WriteLine("  RankingELO.GetProbabilityWinning(1700f, 1300f)         = " + RankingELO.GetProbabilityWinning(1700f, 1300f).ToString(CultureInfo.InvariantCulture));
        Console.WriteLine("  RankingELO.UpdatePlayerRankings(1700f, 1300f, 32f, false) = " + RankingELO.UpdatePlayerRankings(1700f, 1300f, 32f, false));
        Console.WriteLine();

        using (var season = new Population(players, 2025))
        {
            for (int week = 1; week <= weeks; week++)
            {
                season.PlayMatches(matchesPerWeek);
                int[] leagues = season.LeagueCounts();
                Console.WriteLine("Week " + week + " (" + season.MatchesPlayed + " matches; Bronze " + leagues[0] + ", Silver " + leagues[1] + ", Gold " + leagues[2] + ", Platinum " + leagues[3] + ")");
                if (season.LastLeagueChange != null) Console.WriteLine("Latest: " + season.LastLeagueChange + "!");
                PrintTable(season);
                Console.WriteLine();
            }
            var before = season.Members;
            SeasonRecord[] records = season.EndSeason();
            Console.WriteLine("Season over. Records (league held at the end, peak), then the soft reset (half the way to 1200; Platinum keeps a quarter):");
            Console.WriteLine("  Player       League    Peak  Games  Wins   Rating -> reset");
            var after = season.Members;
            foreach (int index in season.Ranking())
            {
                SeasonRecord r = records[index];
                Console.WriteLine(string.Format(CultureInfo.InvariantCulture, "  {0,-10}   {1,-8} {2,6:F0} {3,6} {4,5}  {5,7:F1} -> {6,6:F1}",
                    before[index].Name, Population.LeagueNames[r.League], r.PeakRating, r.Games, r.Wins, r.Rating, after[index].State.Rating));
            }
        }
        return 0;
    }

    private static void PrintTable(Population season)
    {
        Console.WriteLine("  #  Player       Skill  Rating  Games  Streak  League");
        int place = 1;
        var members = season.Members;
        foreach (int index in season.Ranking())
        {
            Population.Member m = members[index];
            Console.WriteLine(string.Format(CultureInfo.InvariantCulture, "{0,3}  {1,-10} {2,6:F0} {3,7:F1} {4,6} {5,7}  {6}",
                place++, m.Name, m.Skill, m.State.Rating, m.State.GamesPlayed, m.State.WinStreak,
                Population.LeagueNames[season.LeagueOfPlayer(index)]));
        }
    }
}
