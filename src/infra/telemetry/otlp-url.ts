/**
 * Where one OTLP/HTTP signal goes: the convention of OTEL_EXPORTER_OTLP_ENDPOINT — the endpoint is the
 * collector's base URL and each signal has its path below it. An endpoint written with a signal's path
 * (`…/v1/metrics`, `…/v1/traces`) names the collector by what is before it, so metrics and spans go to the
 * same collector whichever of the two a person wrote.
 */
export function otlpSignalUrl(endpoint: string, signalPath: '/v1/metrics' | '/v1/traces'): string {
  const url = new URL(endpoint);
  const base = url.pathname.replace(/\/+$/, '').replace(/\/v1\/(metrics|traces)$/, '');
  url.pathname = `${base}${signalPath}`;
  return url.href;
}
