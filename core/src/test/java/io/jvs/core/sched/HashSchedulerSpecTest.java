package io.jvs.core.sched;

import io.jvs.core.net.IpAddress;
import io.jvs.core.service.ForwardMethod;
import io.jvs.core.service.RealServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * dh and sh as the kernel's {@code ip_vs_dh.c} and {@code ip_vs_sh.c} build and use their tables: bucket values
 * for a set of addresses under both address hashes, dh's table filled cyclically with weights ignored, sh's
 * filled in proportion to weight (a weight-0 server still gets one bucket per round), no fallback without the
 * flag, and sh's fallback probe order ({@code ip_vs_sh_get_fallback}).
 */
class HashSchedulerSpecTest
{
    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "10.0.0.1,       177, 39,  128, 433, 159",
        "10.0.0.2,       98,  137, 226, 866, 550",
        "10.0.0.3,       19,  235, 67,  275, 941",
        "192.168.1.100,  36,  89,  178, 548, 357",
        "172.16.0.2,     98,  220, 52,  866, 880",
        "207.175.44.110, 14,  174, 7,   526, 699",
    })
    void shouldMatchTheHashTableOfSection12(
        final String ip,
        final int multiplicative8,
        final int kernel8,
        final int kernel8WithPort1234,
        final int multiplicative10,
        final int kernel10)
    {
        final int key = IpAddress.parse(ip).v4();
        assertThat(AddressHash.MULTIPLICATIVE.bucket(key, 8)).isEqualTo(multiplicative8);
        assertThat(AddressHash.KERNEL.bucket(key, 8)).isEqualTo(kernel8);
        assertThat(AddressHash.KERNEL.bucket(1234 + key, 8)).isEqualTo(kernel8WithPort1234);
        assertThat(AddressHash.MULTIPLICATIVE.bucket(key, 10)).isEqualTo(multiplicative10);
        assertThat(AddressHash.KERNEL.bucket(key, 10)).isEqualTo(kernel10);
    }

    @Test
    void dh1ShouldFillBucketsCyclicallyIgnoringWeights()
    {
        final ServiceFixture fixture = ServiceFixture.of("dh", "A1 B5 C9");
        final RealServer[] table = ((DestinationHashScheduler)fixture.service.scheduler()).table();
        assertThat(ServiceFixture.names(java.util.Arrays.copyOf(table, 7))).isEqualTo("A B C A B C A");
        assertThat(counts(table)).isEqualTo(Map.of("A", 86, "B", 85, "C", 85));
    }

    @Test
    void dhShouldSendADestinationToTheServerOfItsBucket()
    {
        final ServiceFixture fixture = ServiceFixture.of("dh", "A1 B1 C1");
        // 10.0.0.1 hashes to bucket 177 = 3 * 59: A's.
        assertThat(ServiceFixture.name(fixture.pickTo("10.0.0.1"))).isEqualTo("A");
        // 10.0.0.2 hashes to 98 = 3 * 32 + 2: C's.
        assertThat(ServiceFixture.name(fixture.pickTo("10.0.0.2"))).isEqualTo("C");
    }

    @Test
    void dhShouldUseTheKernelHashWhenAsked()
    {
        final ServiceFixture fixture = ServiceFixture.of("dh", new SchedulerFlags(false, false, false, true, false, 0),
            "A1 B1 C1");
        // hash_32(10.0.0.1, 8) = 39 = 3 * 13: A's; 10.0.0.2 -> 137 = 3 * 45 + 2: C's.
        assertThat(ServiceFixture.name(fixture.pickTo("10.0.0.1"))).isEqualTo("A");
        assertThat(ServiceFixture.name(fixture.pickTo("10.0.0.2"))).isEqualTo("C");
    }

    @Test
    void dhShouldRefuseAQuiescedServerWithoutFallback()
    {
        final ServiceFixture fixture = ServiceFixture.of("dh", "A1 B1 C1");
        fixture.service.editServer(fixture.server('A'), 0, 0, 0, ForwardMethod.NAT);
        assertThat(fixture.pickTo("10.0.0.1")).isNull();
    }

    @Test
    void sh1ShouldFillBucketsInProportionToWeight()
    {
        final ServiceFixture fixture = ServiceFixture.of("sh", "A2 B1 C1");
        final RealServer[] table = ((SourceHashScheduler)fixture.service.scheduler()).table();
        assertThat(ServiceFixture.names(java.util.Arrays.copyOf(table, 8))).isEqualTo("A A B C A A B C");
        assertThat(counts(table)).isEqualTo(Map.of("A", 128, "B", 64, "C", 64));
    }

    @Test
    void sh2ShouldGiveAWeightZeroServerOneBucketPerRound()
    {
        final ServiceFixture fixture = ServiceFixture.of("sh", "A3 B0 C1");
        final RealServer[] table = ((SourceHashScheduler)fixture.service.scheduler()).table();
        assertThat(ServiceFixture.names(java.util.Arrays.copyOf(table, 10))).isEqualTo("A A A B C A A A B C");
        assertThat(counts(table)).isEqualTo(Map.of("A", 154, "B", 51, "C", 51));
    }

    @Test
    void shShouldRefuseTheWeightZeroServerOfItsBucketWithoutFallback()
    {
        final ServiceFixture fixture = ServiceFixture.of("sh", "A3 B0 C1");
        // 10.0.0.1 hashes to bucket 177 = 5 * 35 + 2: the third of "A A A B C", i.e. A; find a B bucket.
        final RealServer[] table = ((SourceHashScheduler)fixture.service.scheduler()).table();
        assertThat(ServiceFixture.name(table[177])).isEqualTo("A");
        assertThat(ServiceFixture.name(fixture.pickFor("10.0.0.1", 999))).isEqualTo("A");
        // 10.0.0.2 -> 98 = 5 * 19 + 3: B, weight 0.
        assertThat(ServiceFixture.name(table[98])).isEqualTo("B");
        assertThat(fixture.pickFor("10.0.0.2", 999)).isNull();
    }

    @Test
    void shFallbackShouldProbeFromTwiceTheHomeBucket()
    {
        final SchedulerFlags flags = new SchedulerFlags(true, false, false, true, false, 0);
        final ServiceFixture fixture = ServiceFixture.of("sh", flags, "A1 B1 C1 D1");
        final RealServer[] table = ((SourceHashScheduler)fixture.service.scheduler()).table();
        // kernel hash: 10.0.0.1 -> home bucket 39 (D); probes go 78 (C), 79 (D), 80 (A), ...
        assertThat(ServiceFixture.name(table[39])).isEqualTo("D");
        assertThat(ServiceFixture.name(fixture.pickFor("10.0.0.1", 5))).isEqualTo("D");
        fixture.service.editServer(fixture.server('D'), 0, 0, 0, ForwardMethod.NAT);
        final RealServer[] refilled = ((SourceHashScheduler)fixture.service.scheduler()).table();
        assertThat(ServiceFixture.names(new RealServer[] {refilled[39], refilled[78], refilled[79]}))
            .isEqualTo("D C D");
        assertThat(ServiceFixture.name(fixture.pickFor("10.0.0.1", 5))).isEqualTo("C");
        fixture.service.editServer(fixture.server('C'), 0, 0, 0, ForwardMethod.NAT);
        // C and D are both quiesced now: 78 (C) and 79 (D) are skipped, 80 is A.
        assertThat(ServiceFixture.name(fixture.pickFor("10.0.0.1", 5))).isEqualTo("A");
    }

    @Test
    void shPortShouldSpreadOneClientOverServersByPort()
    {
        final SchedulerFlags flags = new SchedulerFlags(false, true, false, true, false, 0);
        final ServiceFixture fixture = ServiceFixture.of("sh", flags, "A1 B1 C1 D1");
        final RealServer[] table = ((SourceHashScheduler)fixture.service.scheduler()).table();
        // hash_32(1234 + 10.0.0.1, 8) = 128 (the table of bucket values above); without the port, 39.
        assertThat(fixture.pickFor("10.0.0.1", 1234)).isSameAs(table[128]);
        assertThat(fixture.pickFor("10.0.0.1", 0)).isSameAs(table[39]);
    }

    @Test
    void shSeedOverloadShouldRefuseAServerAboveTwiceItsWeight()
    {
        final SchedulerFlags flags = new SchedulerFlags(false, false, false, false, true, 0);
        final ServiceFixture fixture = ServiceFixture.of("sh", flags, "A1");
        final RealServer a = fixture.server('A');
        a.bindConnection(false);
        a.bindConnection(true);
        assertThat(fixture.pickFor("10.0.0.1", 1)).isSameAs(a);
        a.bindConnection(true);
        assertThat(fixture.pickFor("10.0.0.1", 1)).isNull();
    }

    @Test
    void shouldHonourAConfiguredTableSize()
    {
        final SchedulerFlags flags = SchedulerFlags.parse("table-size=1024", "sh");
        final ServiceFixture fixture = ServiceFixture.of("sh", flags, "A3 B1");
        final RealServer[] table = ((SourceHashScheduler)fixture.service.scheduler()).table();
        assertThat(table).hasSize(1024);
        assertThat(counts(table)).isEqualTo(Map.of("A", 768, "B", 256));
    }

    static Map<String, Integer> counts(final RealServer[] table)
    {
        final Map<String, Integer> counts = new TreeMap<>();
        for (final RealServer server : table)
        {
            counts.merge(ServiceFixture.name(server), 1, Integer::sum);
        }
        return counts;
    }
}
