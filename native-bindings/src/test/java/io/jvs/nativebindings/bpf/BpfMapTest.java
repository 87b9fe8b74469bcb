package io.jvs.nativebindings.bpf;

import java.net.InetAddress;

import io.jvs.nativebindings.NativeCallException;
import io.jvs.nativebindings.Syscalls;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Maps in the kernel: created, written, read back, deleted, refused. Needs root (CAP_BPF), as CI has.
 */
class BpfMapTest
{
    private static final int EEXIST = 17;
    private static final int EINVAL = 22;

    private final Syscalls syscalls = Syscalls.create();

    @ParameterizedTest
    @ValueSource(strings = {"panama", "jnr"})
    void shouldReadBackWhatIsWrittenAndForgetWhatIsDeleted(final String binding)
    {
        try (BpfMap map = BpfMap.createHash(Syscalls.create(binding), "jvs_test_hash", 4, 8, 16))
        {
            final byte[] key = {10, 77, 2, 2};
            final byte[] value = {1, 2, 3, 4, 5, 6, 7, 8};

            assertThat(map.lookup(key)).isEmpty();
            map.put(key, value);
            assertThat(map.lookup(key)).hasValueSatisfying(read -> assertThat(read).containsExactly(value));
            map.put(key, new byte[8]);
            assertThat(map.lookup(key)).hasValueSatisfying(read -> assertThat(read).containsOnly(0));
            assertThat(map.delete(key)).isTrue();
            assertThat(map.delete(key)).isFalse();
            assertThat(map.lookup(key)).isEmpty();
        }
    }

    @Test
    void shouldRefuseToCreateAnEntryThatExistsWhenAskedNotTo()
    {
        try (BpfMap map = BpfMap.createHash(syscalls, "jvs_test_hash", 4, 4, 16))
        {
            map.update(new byte[4], new byte[4], BpfAttr.MapElement.UPDATE_NO_EXIST);

            assertThatThrownBy(() -> map.update(new byte[4], new byte[4], BpfAttr.MapElement.UPDATE_NO_EXIST))
                .isInstanceOfSatisfying(NativeCallException.class, ex -> assertThat(ex.errno()).isEqualTo(EEXIST))
                .hasMessageContaining("BPF_MAP_UPDATE_ELEM").hasMessageContaining("jvs_test_hash");
        }
    }

    @Test
    void shouldCreateAnXskMapOfFourByteValuesOnly()
    {
        try (BpfMap xsks = BpfMap.createXskMap(syscalls, "jvs_test_xsks", 4))
        {
            assertThat(xsks.fd()).isPositive();
            assertThat(xsks.type()).isEqualTo(BpfMap.TYPE_XSKMAP);
        }
        assertThatThrownBy(() -> BpfMap.create(syscalls, BpfMap.TYPE_XSKMAP, "jvs_bad_xsks", 4, 8, 4))
            .isInstanceOfSatisfying(NativeCallException.class, ex -> assertThat(ex.errno()).isEqualTo(EINVAL))
            .hasMessageContaining("value 8 B");
    }

    @Test
    void shouldCreateAnArrayWhoseEntriesAllExistZeroed()
    {
        try (BpfMap array = BpfMap.createArray(syscalls, "jvs_test_array", Long.BYTES, 4);
             XdpVipFilter filter = XdpVipFilter.create(syscalls, 4))
        {
            assertThat(array.type()).isEqualTo(BpfMap.TYPE_ARRAY);
            assertThat(array.lookup(3)).hasValueSatisfying(value -> assertThat(value).containsOnly(0));
            assertThat(array.lookup(4)).as("past the last index").isEmpty();
            array.put(new byte[] {2, 0, 0, 0}, new byte[] {7, 0, 0, 0, 0, 0, 0, 1});
            assertThat(array.lookup(2)).hasValue(new byte[] {7, 0, 0, 0, 0, 0, 0, 1});
            assertThat(filter.unplacedFrames()).isZero();
            assertThat(filter.mapFds()).containsOnlyKeys(XdpPrograms.VIPS_V4, XdpPrograms.VIPS_V6,
                XdpPrograms.REAL_SERVERS_V4, XdpPrograms.REAL_SERVERS_V6, XdpPrograms.LOCALS_V4,
                XdpPrograms.LOCALS_V6, XdpPrograms.DESTINATION_PREFIXES_V4, XdpPrograms.DESTINATION_PREFIXES_V6,
                XdpPrograms.SOURCE_PREFIXES_V4, XdpPrograms.SOURCE_PREFIXES_V6, XdpPrograms.UNPLACED);
        }
    }

    @Test
    void shouldCheckSizesNamesAndUseAfterClose()
    {
        final BpfMap map = BpfMap.createHash(syscalls, "jvs_test_hash", 4, 4, 16);
        assertThatThrownBy(() -> map.put(new byte[16], new byte[4])).hasMessageContaining("key is 16 bytes");
        map.close();
        map.close();

        assertThatThrownBy(map::fd).hasMessageContaining("closed");
        assertThatThrownBy(() -> BpfMap.createHash(syscalls, "name with spaces", 4, 4, 1))
            .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldAddAndRemoveVipsRealServersAndLocalAddressesOfBothFamilies() throws Exception
    {
        try (XdpVipFilter filter = XdpVipFilter.create(syscalls, 64))
        {
            final InetAddress vip4 = InetAddress.getByName("10.77.2.2");
            final InetAddress vip6 = InetAddress.getByName("2001:db8::2");
            final InetAddress real4 = InetAddress.getByName("10.77.3.3");
            final InetAddress real6 = InetAddress.getByName("2001:db8:3::3");

            filter.addVip(vip4);
            filter.addVip(vip6);
            filter.addRealServer(real4);
            filter.addRealServer(real6);

            assertThat(filter.isVip(vip4)).isTrue();
            assertThat(filter.isVip(vip6)).isTrue();
            assertThat(filter.isVip(real4)).isFalse();
            assertThat(filter.isRealServer(real6)).isTrue();
            assertThat(filter.isRealServer(vip6)).isFalse();

            assertThat(filter.removeVip(vip6)).isTrue();
            assertThat(filter.removeVip(vip6)).isFalse();
            assertThat(filter.isVip(vip6)).isFalse();
            assertThat(filter.isVip(vip4)).isTrue();
            assertThat(filter.removeRealServer(real4)).isTrue();
            assertThat(filter.isRealServer(real4)).isFalse();

            final InetAddress box4 = InetAddress.getByName("10.77.1.254");
            final InetAddress box6 = InetAddress.getByName("2001:db8::fe");
            filter.addLocalAddress(box4);
            filter.addLocalAddress(box6);
            assertThat(filter.isLocalAddress(box4)).isTrue();
            assertThat(filter.isLocalAddress(box6)).isTrue();
            assertThat(filter.isLocalAddress(vip4)).isFalse();
            assertThat(filter.removeLocalAddress(box6)).isTrue();
            assertThat(filter.isLocalAddress(box6)).isFalse();
        }
    }

    @Test
    void shouldAddFindAndRemoveDestinationAndSourcePrefixesInTheTries() throws Exception
    {
        try (XdpVipFilter filter = XdpVipFilter.create(syscalls, 64))
        {
            final InetAddress net4 = InetAddress.getByName("203.0.113.0");
            final InetAddress net6 = InetAddress.getByName("2001:db8:cafe::");
            filter.addDestinationPrefix(net4, 24);
            filter.addDestinationPrefix(InetAddress.getByName("203.0.113.128"), 25);
            filter.addSourcePrefix(net6, 48);

            assertThat(filter.inDestinationPrefix(InetAddress.getByName("203.0.113.7"))).isTrue();
            assertThat(filter.inDestinationPrefix(InetAddress.getByName("203.0.113.255"))).isTrue();
            assertThat(filter.inDestinationPrefix(InetAddress.getByName("203.0.114.0"))).isFalse();
            assertThat(filter.inSourcePrefix(InetAddress.getByName("203.0.113.7"))).as("the other side").isFalse();
            assertThat(filter.inSourcePrefix(InetAddress.getByName("2001:db8:cafe:1::9"))).isTrue();
            assertThat(filter.inSourcePrefix(InetAddress.getByName("2001:db8:caff::"))).isFalse();
            assertThat(filter.inDestinationPrefix(InetAddress.getByName("2001:db8:cafe::1"))).isFalse();

            assertThat(filter.removeDestinationPrefix(net4, 24)).isTrue();
            assertThat(filter.removeDestinationPrefix(net4, 24)).isFalse();
            assertThat(filter.inDestinationPrefix(InetAddress.getByName("203.0.113.7"))).isFalse();
            assertThat(filter.inDestinationPrefix(InetAddress.getByName("203.0.113.200"))).as("the /25 stays").isTrue();
            assertThat(filter.removeSourcePrefix(net6, 48)).isTrue();
            assertThat(filter.inSourcePrefix(InetAddress.getByName("2001:db8:cafe:1::9"))).isFalse();

            filter.addDestinationPrefix(InetAddress.getByName("0.0.0.0"), 0);
            assertThat(filter.inDestinationPrefix(InetAddress.getByName("192.0.2.1"))).as("/0 holds all").isTrue();
            assertThatThrownBy(() -> filter.addDestinationPrefix(InetAddress.getByName("203.0.113.1"), 24))
                .hasMessageContaining("203.0.113.1/24 has bits set past its prefix length");
            assertThatThrownBy(() -> filter.addSourcePrefix(net4, 33)).hasMessageContaining("not in 0..32");
        }
    }
}
