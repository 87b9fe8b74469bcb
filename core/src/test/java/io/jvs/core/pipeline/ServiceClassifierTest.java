package io.jvs.core.pipeline;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * ip_vs_service_find's order: a firewall-mark service of the packet's family first, then (protocol, address,
 * port), then (protocol, address, port 0) for a persistent catch-all; each key told apart by every field.
 */
class ServiceClassifierTest
{
    private static final int TCP = 6;
    private static final int UDP = 17;
    private static final long V6_HIGH = 0x2001_0DB8_0000_0000L;

    @Test
    void shouldFindAnIpv4ServiceByProtocolAddressAndPort()
    {
        final ServiceClassifier classifier = new ServiceClassifier.Builder()
            .addAddress(false, TCP, 0, 0x0A00_0064L, 80, 3)
            .addAddress(false, UDP, 0, 0x0A00_0064L, 80, 4)
            .addAddress(false, TCP, 0, 0x0A00_0065L, 80, 5)
            .addAddress(false, TCP, 0, 0x0A00_0064L, 443, 6)
            .build();
        assertThat(classifier.lookup(0, false, TCP, 0, 0x0A00_0064L, 80)).isEqualTo(3);
        assertThat(classifier.lookup(0, false, UDP, 0, 0x0A00_0064L, 80)).isEqualTo(4);
        assertThat(classifier.lookup(0, false, TCP, 0, 0x0A00_0065L, 80)).isEqualTo(5);
        assertThat(classifier.lookup(0, false, TCP, 0, 0x0A00_0064L, 443)).isEqualTo(6);
        assertThat(classifier.lookup(0, false, TCP, 0, 0x0A00_0064L, 81)).isEqualTo(ServiceClassifier.NONE);
        assertThat(classifier.lookup(0, false, 132, 0, 0x0A00_0064L, 80)).isEqualTo(ServiceClassifier.NONE);
        // The same address over IPv6 (its low word) is another service.
        assertThat(classifier.lookup(0, true, TCP, 0, 0x0A00_0064L, 80)).isEqualTo(ServiceClassifier.NONE);
    }

    @Test
    void shouldFindAnIpv6ServiceByBothHalvesOfTheAddress()
    {
        final ServiceClassifier classifier = new ServiceClassifier.Builder()
            .addAddress(true, TCP, V6_HIGH, 0x64, 80, 1)
            .addAddress(true, TCP, V6_HIGH + 1, 0x64, 80, 2)
            .addAddress(true, UDP, V6_HIGH, 0x64, 80, 7)
            .build();
        assertThat(classifier.lookup(0, true, TCP, V6_HIGH, 0x64, 80)).isEqualTo(1);
        assertThat(classifier.lookup(0, true, TCP, V6_HIGH + 1, 0x64, 80)).isEqualTo(2);
        assertThat(classifier.lookup(0, true, UDP, V6_HIGH, 0x64, 80)).isEqualTo(7);
        assertThat(classifier.lookup(0, true, TCP, V6_HIGH, 0x65, 80)).isEqualTo(ServiceClassifier.NONE);
        assertThat(classifier.lookup(0, true, TCP, V6_HIGH + 2, 0x64, 80)).isEqualTo(ServiceClassifier.NONE);
        assertThat(classifier.lookup(0, true, TCP, V6_HIGH, 0x64, 8080)).isEqualTo(ServiceClassifier.NONE);
        assertThat(classifier.lookup(0, false, TCP, 0, 0x64, 80)).isEqualTo(ServiceClassifier.NONE);
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void shouldFallBackToThePortZeroServiceOnlyWhenNoExactOneMatches(final boolean v6)
    {
        final long high = v6 ? V6_HIGH : 0;
        final ServiceClassifier classifier = new ServiceClassifier.Builder()
            .addAddress(v6, TCP, high, 0x0A00_0064L, 0, 1)
            .addAddress(v6, TCP, high, 0x0A00_0064L, 80, 2)
            .build();
        assertThat(classifier.lookup(0, v6, TCP, high, 0x0A00_0064L, 80)).isEqualTo(2);
        assertThat(classifier.lookup(0, v6, TCP, high, 0x0A00_0064L, 22)).isEqualTo(1);
        assertThat(classifier.lookup(0, v6, TCP, high, 0x0A00_0064L, 0)).isEqualTo(1);
        assertThat(classifier.lookup(0, v6, UDP, high, 0x0A00_0064L, 22)).isEqualTo(ServiceClassifier.NONE);
        assertThat(classifier.lookup(0, v6, TCP, high, 0x0A00_0065L, 22)).isEqualTo(ServiceClassifier.NONE);
    }

    @Test
    void shouldPreferAMarkServiceOfThePacketsFamily()
    {
        final ServiceClassifier classifier = new ServiceClassifier.Builder()
            .addAddress(false, TCP, 0, 0x0A00_0064L, 80, 1)
            .addAddress(true, TCP, V6_HIGH, 0x64, 80, 2)
            .addMark(7, false, 3)
            .addMark(7, true, 4)
            .addMark(0xFFFF_FFFF, false, 5)
            .build();
        assertThat(classifier.lookup(7, false, TCP, 0, 0x0A00_0064L, 80)).isEqualTo(3);
        assertThat(classifier.lookup(7, true, TCP, V6_HIGH, 0x64, 80)).isEqualTo(4);
        assertThat(classifier.lookup(7, false, UDP, 0, 0x0B00_0000L, 53)).isEqualTo(3);
        assertThat(classifier.lookup(0xFFFF_FFFF, false, TCP, 0, 0x0A00_0064L, 80)).isEqualTo(5);
        assertThat(classifier.lookup(0xFFFF_FFFF, true, TCP, V6_HIGH, 0x64, 80)).isEqualTo(2);
        // An unknown mark, or none, falls through to the address.
        assertThat(classifier.lookup(8, false, TCP, 0, 0x0A00_0064L, 80)).isEqualTo(1);
        assertThat(classifier.lookup(0, false, TCP, 0, 0x0A00_0064L, 80)).isEqualTo(1);
        assertThat(classifier.lookup(8, false, TCP, 0, 0x0A00_0065L, 80)).isEqualTo(ServiceClassifier.NONE);
    }

    @Test
    void shouldHoldExactlySixteenServicesAndMarksAndMore()
    {
        for (final int count : new int[] {16, 17, 32})
        {
            final ServiceClassifier.Builder builder = new ServiceClassifier.Builder();
            for (int i = 0; i < count; i++)
            {
                builder.addAddress(false, TCP, 0, 0x0A00_0000L + i, 80, i);
                builder.addAddress(true, TCP, V6_HIGH, i, 80, 100 + i);
                builder.addMark(1 + i, false, 200 + i);
            }
            final ServiceClassifier classifier = builder.build();
            for (int i = 0; i < count; i++)
            {
                assertThat(classifier.lookup(0, false, TCP, 0, 0x0A00_0000L + i, 80)).isEqualTo(i);
                assertThat(classifier.lookup(0, true, TCP, V6_HIGH, i, 80)).isEqualTo(100 + i);
                assertThat(classifier.lookup(1 + i, false, UDP, 0, 1, 1)).isEqualTo(200 + i);
            }
            assertThat(classifier.lookup(0, false, TCP, 0, 0x0A00_0000L + count, 80)).isEqualTo(ServiceClassifier.NONE);
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void shouldFindACatchAllServiceThatIsTheOnlyOne(final boolean v6)
    {
        final long high = v6 ? V6_HIGH : 0;
        final ServiceClassifier classifier = new ServiceClassifier.Builder()
            .addAddress(v6, TCP, high, 0x0A00_0064L, 0, 9)
            .build();
        assertThat(classifier.lookup(0, v6, TCP, high, 0x0A00_0064L, 443)).isEqualTo(9);
        assertThat(classifier.lookup(0, v6, TCP, high, 0x0A00_0065L, 443)).isEqualTo(ServiceClassifier.NONE);
    }

    @Test
    void shouldFindNothingInAnEmptyConfiguration()
    {
        final ServiceClassifier classifier = new ServiceClassifier.Builder().build();
        assertThat(classifier.lookup(0, false, TCP, 0, 0x0A00_0064L, 80)).isEqualTo(ServiceClassifier.NONE);
        assertThat(classifier.lookup(1, true, TCP, V6_HIGH, 1, 80)).isEqualTo(ServiceClassifier.NONE);
    }

    /** A service key as the oracle holds it. */
    private record Key(boolean v6, int protocol, long high, long low, int port)
    {
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void shouldAgreeWithAMapOnManyServicesAndMarks(final long seed)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        final ServiceClassifier.Builder builder = new ServiceClassifier.Builder();
        final Map<Key, Integer> services = new HashMap<>();
        final Map<Long, Integer> marks = new HashMap<>();
        final int count = 1 + random.nextInt(300);
        // Few addresses, protocols and ports, so that lookups hit, miss by one field and probe past neighbours.
        final List<Integer> ports = List.of(0, 80, 443, 53);
        for (int slot = 0; slot < count; slot++)
        {
            final Key key = randomKey(random, ports);
            if (services.putIfAbsent(key, slot) == null)
            {
                builder.addAddress(key.v6(), key.protocol(), key.high(), key.low(), key.port(), slot);
            }
            if (random.nextInt(4) == 0)
            {
                final int mark = 1 + random.nextInt(40);
                final boolean v6 = random.nextBoolean();
                if (marks.putIfAbsent((long)mark << 1 | (v6 ? 1 : 0), 10_000 + slot) == null)
                {
                    builder.addMark(mark, v6, 10_000 + slot);
                }
            }
        }
        final ServiceClassifier classifier = builder.build();
        for (int i = 0; i < 3000; i++)
        {
            final Key key = randomKey(random, ports);
            final int mark = random.nextInt(3) == 0 ? 1 + random.nextInt(50) : 0;
            Integer expected = mark == 0 ? null : marks.get((long)mark << 1 | (key.v6() ? 1 : 0));
            if (expected == null)
            {
                expected = services.get(key);
            }
            if (expected == null)
            {
                expected = services.get(new Key(key.v6(), key.protocol(), key.high(), key.low(), 0));
            }
            assertThat(classifier.lookup(mark, key.v6(), key.protocol(), key.high(), key.low(), key.port()))
                .as("%s mark %d", key, mark).isEqualTo(expected == null ? ServiceClassifier.NONE : expected);
        }
    }

    private static Key randomKey(final SplittableRandom random, final List<Integer> ports)
    {
        final boolean v6 = random.nextBoolean();
        final int protocol = random.nextBoolean() ? TCP : UDP;
        final long high = v6 ? V6_HIGH + random.nextInt(3) : 0;
        final long low = 0x0A00_0000L + random.nextInt(40);
        return new Key(v6, protocol, high, low, ports.get(random.nextInt(ports.size())));
    }
}
