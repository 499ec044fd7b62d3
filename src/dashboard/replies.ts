import type { FastifyReply } from "fastify";

/** How every dashboard route answers: an HTML page, or a redirect after a form. */
export function sendPage(reply: FastifyReply, html: string, status = 200): FastifyReply {
  return reply.code(status).type("text/html; charset=utf-8").send(html);
}

/** A 303 so the browser follows with GET, and reloading the result never re-posts a form. */
export function redirect(reply: FastifyReply, location: string): FastifyReply {
  return reply.code(303).header("location", location).send();
}
