using NUnit.Framework;
using RankingElo.Native;

namespace RankingElo.Tests
{
    /// <summary>
    /// The first-use check of the native library: it loads here, and what a user would read
    /// if it did not names the binary this Editor or player needs.
    /// </summary>
    [TestFixture]
    public class PluginBinaryTests
    {
        [Test]
        public void TheLibraryLoadsAndTheCheckPassesRepeatedly()
        {
            PluginBinary.EnsureLoaded();
            PluginBinary.EnsureLoaded();
        }

        [Test]
        public void TheMessagesNameTheBinaryAndTheFix()
        {
            // Inside Unity the package path of this platform's binary; outside it, the file
            // name the runtime searches for.
            string binary = PluginBinary.ExpectedBinary();
            Assert.That(binary.StartsWith("Packages/com.rankingelo.engine/Runtime/Plugins/") || binary.StartsWith("libranking_elo.") || binary.StartsWith("ranking_elo.dll"), binary);
            string missing = PluginBinary.MissingMessage();
            StringAssert.Contains(binary, missing);
            StringAssert.Contains("Reinstall the package", missing);
            // The platform and the CPU, so a report from a user says which binary is wrong.
            string target = PluginBinary.Target();
            StringAssert.Contains(target, missing);
            StringAssert.Contains(System.Runtime.InteropServices.RuntimeInformation.ProcessArchitecture.ToString(), target);
            string stale = PluginBinary.StaleMessage("elo_pool_new");
            StringAssert.Contains(binary, stale);
            StringAssert.Contains(target, stale);
            StringAssert.Contains("elo_pool_new", stale);
            StringAssert.Contains("restart", stale);
        }
    }
}
