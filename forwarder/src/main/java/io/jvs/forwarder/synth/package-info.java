/**
 * Synthetic capture files for replay and tests: {@link io.jvs.forwarder.synth.TraceSynthesizer} writes what
 * the client-facing port of a balancer in front of a server farm receives (client-to-service direction only,
 * as a direct-routing or tunnelling balancer sees it), seeded and byte-for-byte reproducible, with the
 * ipvsadm rules of the services it is addressed to. {@link io.jvs.forwarder.synth.SynthSettings} says what
 * to write, {@link io.jvs.forwarder.synth.SynthSummary} what was written and
 * {@link io.jvs.forwarder.synth.AddressPlan} holds the MACs and addresses a replay sets the balancer up with.
 */
package io.jvs.forwarder.synth;
