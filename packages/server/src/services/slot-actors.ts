/**
 * Who a slot event says acted when no partner did: the operator, through the CLI. API calls record the partner id
 * (`ptr_...`), so the two never collide.
 */
export const OPERATOR = "operator";
