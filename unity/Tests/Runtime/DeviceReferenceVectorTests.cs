#if UNITY_5_3_OR_NEWER
using NUnit.Framework;
using UnityEngine;
using UnityEngine.TestTools;

namespace RankingElo.Tests
{
    /// <summary>
    /// Play Mode test that runs in players too (Android, iOS, WebGL, desktop): loads the
    /// reference vectors as a <see cref="TextAsset"/> and requires every output bit of this
    /// device to be the engine's reference bits. See the package manual, "Testing determinism
    /// on a device". The vectors are put into the test build only (<see cref="DeviceVectorsSetup"/>).
    /// </summary>
    [TestFixture]
    [PrebuildSetup(typeof(DeviceVectorsSetup))]
    [PostBuildCleanup(typeof(DeviceVectorsSetup))]
    public class DeviceReferenceVectorTests
    {
        [Test]
        public void ThisDeviceComputesTheReferenceBits()
        {
            var vectors = Resources.Load<TextAsset>(ReferenceVectorReplay.ResourceName);
            Assert.IsNotNull(vectors, ReferenceVectorReplay.ResourceName + " is missing from the test build (DeviceVectorsSetup copies it there)");
            Assert.Greater(ReferenceVectorReplay.Replay(vectors.text), 600);
        }

        [Test]
        public void ThisDeviceComputesTheFideReferenceBits()
        {
            var vectors = Resources.Load<TextAsset>(ReferenceVectorReplay.FideResourceName);
            Assert.IsNotNull(vectors, ReferenceVectorReplay.FideResourceName + " is missing from the test build (DeviceVectorsSetup copies it there)");
            Assert.Greater(ReferenceVectorReplay.Replay(vectors.text), 500);
        }

        [Test]
        public void ThisDeviceComputesTheTeamReferenceRatings()
        {
            var vectors = Resources.Load<TextAsset>(ReferenceVectorReplay.TeamResourceName);
            Assert.IsNotNull(vectors, ReferenceVectorReplay.TeamResourceName + " is missing from the test build (DeviceVectorsSetup copies it there)");
            Assert.GreaterOrEqual(ReferenceVectorReplay.ReplayGroups(vectors.text), 50);
        }
    }
}
#endif
