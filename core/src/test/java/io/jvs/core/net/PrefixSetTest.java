package io.jvs.core.net;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.LongStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link PrefixSet} answers as a scan of its prefixes with {@link IpPrefix#contains} does, on random prefixes of
 * every length and on addresses drawn inside, at the edges of and outside them.
 */
class PrefixSetTest
{
    @Test
    void shouldHoldTheAddressesOfItsPrefixesOnly()
    {
        final PrefixSet set = new PrefixSet(List.of(IpPrefix.parse("203.0.113.0/24"), IpPrefix.parse("10.0.0.0/8"),
            IpPrefix.parse("2001:db8:cafe::/48"), IpPrefix.parse("192.0.2.9")));

        assertThat(set.contains(IpAddress.parse("203.0.113.0"))).isTrue();
        assertThat(set.contains(IpAddress.parse("203.0.113.255"))).isTrue();
        assertThat(set.contains(IpAddress.parse("203.0.114.0"))).isFalse();
        assertThat(set.contains(IpAddress.parse("10.255.1.2"))).isTrue();
        assertThat(set.contains(IpAddress.parse("192.0.2.9"))).isTrue();
        assertThat(set.contains(IpAddress.parse("192.0.2.10"))).isFalse();
        assertThat(set.contains(IpAddress.parse("2001:db8:cafe:ffff::1"))).isTrue();
        assertThat(set.contains(IpAddress.parse("2001:db8:caff::"))).isFalse();
        assertThat(set.contains(IpAddress.parse("::ffff:203.0.113.1"))).as("an IPv4 prefix holds no IPv6").isFalse();
        assertThat(set.isEmpty()).isFalse();
        assertThat(PrefixSet.EMPTY.isEmpty()).isTrue();
        assertThat(PrefixSet.EMPTY.contains(IpAddress.parse("203.0.113.1"))).isFalse();
    }

    @Test
    void shouldHoldEveryAddressOfAZeroLengthPrefixOfItsFamily()
    {
        final PrefixSet set = new PrefixSet(List.of(IpPrefix.parse("0.0.0.0/0")));

        assertThat(set.contains(IpAddress.parse("255.255.255.255"))).isTrue();
        assertThat(set.contains(IpAddress.parse("2001:db8::1"))).isFalse();
        assertThat(new PrefixSet(List.of(IpPrefix.parse("::/0"))).contains(IpAddress.parse("2001:db8::1"))).isTrue();
    }

    static LongStream seeds()
    {
        return LongStream.rangeClosed(1, 6);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void shouldAnswerAsAScanOfItsPrefixes(final long seed)
    {
        final Random random = new Random(seed);
        final List<IpPrefix> prefixes = new ArrayList<>();
        for (int i = 0; i < 1 + random.nextInt(12); i++)
        {
            prefixes.add(randomPrefix(random));
        }
        final PrefixSet set = new PrefixSet(prefixes);
        int inside = 0;
        for (int i = 0; i < 5_000; i++)
        {
            final IpAddress address = randomAddress(random, prefixes);
            final boolean expected = prefixes.stream()
                .anyMatch(prefix -> prefix.contains(address.isV6(), address.high(), address.low()));
            assertThat(set.contains(address)).as("%s in %s", address, prefixes).isEqualTo(expected);
            inside += expected ? 1 : 0;
        }
        assertThat(inside).isBetween(500, 4_500);
    }

    static IpPrefix randomPrefix(final Random random)
    {
        final boolean v6 = random.nextBoolean();
        final IpAddress address = v6 ? IpAddress.ofV6(random.nextLong(), random.nextLong()) :
            IpAddress.ofV4(random.nextInt());
        final int length = v6 ? 1 + random.nextInt(128) : 1 + random.nextInt(32);
        return new IpPrefix(address, length);
    }

    /** Inside a prefix (its first, last or a random host), one bit off its network, or anywhere. */
    static IpAddress randomAddress(final Random random, final List<IpPrefix> prefixes)
    {
        final IpPrefix prefix = prefixes.get(random.nextInt(prefixes.size()));
        final IpAddress network = prefix.network();
        final int bits = network.isV6() ? 128 : 32;
        long high = network.high();
        long low = network.low();
        switch (random.nextInt(4))
        {
            case 0 ->
            {
                // a random host of the prefix
                final long randomHigh = random.nextLong();
                final long randomLow = random.nextLong();
                final IpAddress hostMask = network.isV6() ? IpAddress.ofV6(-1L, -1L).mask(prefix.length()) :
                    IpAddress.ofV4(-1).mask(prefix.length());
                high |= randomHigh & ~hostMask.high();
                low |= randomLow & ~hostMask.low() & (network.isV6() ? -1L : 0xFFFF_FFFFL);
            }
            case 1 ->
            {
                // the prefix's last bit flipped: outside unless another prefix holds it
                final int bit = bits - prefix.length();
                if (bit >= 64)
                {
                    high ^= 1L << (bit - 64);
                }
                else
                {
                    low ^= 1L << bit;
                }
            }
            case 2 ->
            {
                // the prefix's last address
                final IpAddress hostMask = network.isV6() ? IpAddress.ofV6(-1L, -1L).mask(prefix.length()) :
                    IpAddress.ofV4(-1).mask(prefix.length());
                high |= ~hostMask.high() & (network.isV6() ? -1L : 0);
                low |= ~hostMask.low() & (network.isV6() ? -1L : 0xFFFF_FFFFL);
            }
            default ->
            {
                return network.isV6() ? IpAddress.ofV6(random.nextLong(), random.nextLong()) :
                    IpAddress.ofV4(random.nextInt());
            }
        }
        return network.isV6() ? IpAddress.ofV6(high, low) : IpAddress.ofV4((int)low);
    }
}
