#if UNITY_5_3_OR_NEWER
using NUnit.Framework;
using UnityEngine;

namespace RankingElo.Tests
{
    /// <summary>
    /// Play Mode test that runs in players too (Android, iOS, WebGL, desktop): loads the
    /// reference vectors as a <see cref="TextAsset"/> and requires every output bit of this
    /// device to be the engine's reference bits. See the package manual, "Testing determinism
    /// on a device".
    /// </summary>
    [TestFixture]
    public class DeviceReferenceVectorTests
    {
        [Test]
        public void ThisDeviceComputesTheReferenceBits()
        {
            var vectors = Resources.Load<TextAsset>(ReferenceVectorReplay.ResourceName);
            Assert.IsNotNull(vectors, "Resources/" + ReferenceVectorReplay.ResourceName + ".txt is missing from the build");
            Assert.Greater(ReferenceVectorReplay.Replay(vectors.text), 600);
        }

        [Test]
        public void ThisDeviceComputesTheTeamReferenceRatings()
        {
            var vectors = Resources.Load<TextAsset>(ReferenceVectorReplay.TeamResourceName);
            Assert.IsNotNull(vectors, "Resources/" + ReferenceVectorReplay.TeamResourceName + ".txt is missing from the build");
            Assert.GreaterOrEqual(ReferenceVectorReplay.ReplayGroups(vectors.text), 50);
        }
    }
}
#endif
