/**
 * The one place core reaches into the MCP SDK's private members, each to work around something the SDK
 * does wrong over Streamable HTTP. Written for the SDK version below; test/sdk-shims.test.ts fails once the
 * installed SDK is another, or no longer does what a shim works around, so an upgrade is checked here.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

/** The SDK version these shims were written for. */
export const SHIMMED_SDK_VERSION = '1.32.2';

/** Error codes of the answers core gives for the SDK. */
export const REQUEST_CANCELLED = -32800;
export const SHUTTING_DOWN = -32000;

/**
 * Whether the SDK's transport still correlates a request id with a response stream: from when it takes the
 * request until it has answered every request of that POST. A request with that id meanwhile would take
 * over the correlation: the first POST's answer would be lost, or go to the second POST. The SDK has no
 * public way to ask.
 */
export function transportHolds(transport: StreamableHTTPServerTransport, id: string | number): boolean {
  const inner = (transport as unknown as { _webStandardTransport?: { _requestToStreamMapping?: unknown } })
    ._webStandardTransport?._requestToStreamMapping;
  return inner instanceof Map && inner.has(id);
}

/**
 * Keep `unanswered` as the transport answers, and answer for the SDK where it never will:
 * - a request the client cancelled: the SDK sends no answer (as MCP asks), but its HTTP transport keeps the
 *   POST open and the id taken until every request of that POST is answered, so each cancelled call would
 *   hold a connection (and its id) for the life of the session, and keep a shutdown waiting its whole
 *   drain. A cancelled request is answered with an error, which a client that cancelled ignores;
 * - a request still running when a shutdown has waited its drain: told so, rather than its stream cut.
 * Installed before the protocol server connects, so every answer passes here.
 */
export function answerForTheSdk(transport: StreamableHTTPServerTransport, unanswered: Set<string | number>) {
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    if ('id' in message && !('method' in message)) unanswered.delete(message.id as string | number);
    return send(message, options);
  };
  const answer = (id: string | number, code: number, message: string): Promise<void> =>
    unanswered.has(id) && transportHolds(transport, id)
      ? transport.send({ jsonrpc: '2.0', id, error: { code, message } }).catch(() => {})
      : Promise.resolve();
  return {
    /**
     * After the protocol server has connected: answer a request once the SDK has aborted its handler (a
     * cancel; from then on the SDK sends nothing for it), whatever order the cancel and the request came
     * in. A cancel the SDK does not act on aborts nothing, and the request answers itself. The SDK keeps its
     * handlers' abort controllers in a private map, which this watches.
     */
    watchAborts(server: Server) {
      const controllers = (server as unknown as { _requestHandlerAbortControllers?: unknown })
        ._requestHandlerAbortControllers;
      if (!(controllers instanceof Map)) return;
      const set = controllers.set.bind(controllers);
      controllers.set = (id: string | number, controller: AbortController) => {
        controller.signal.addEventListener(
          'abort',
          // After the SDK's own handling of the cancel (an answer it sent before the abort has left
          // `unanswered`, and after it, it sends none).
          () => setImmediate(() => void answer(id, REQUEST_CANCELLED, 'Request cancelled')),
          { once: true },
        );
        return set(id, controller);
      };
    },
    /** Answer every request still running with a shutdown error. */
    shuttingDown: () =>
      Promise.all(
        [...unanswered].map((id) =>
          answer(
            id,
            SHUTTING_DOWN,
            'The server is shutting down and did not finish this request; retry once it is back',
          ),
        ),
      ),
  };
}
