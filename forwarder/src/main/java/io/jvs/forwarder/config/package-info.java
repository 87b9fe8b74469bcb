/**
 * The jvs configuration language, shared by the daemon ({@code jvs run --config}) and replay
 * ({@code jvs replay --config}): {@link io.jvs.forwarder.config.JvsConfig} and its one parser.
 */
package io.jvs.forwarder.config;
