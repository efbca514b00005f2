/** The request a made-up answer answered, for `errorFromResponse` called directly: `GET /me` of a tenant. */
export const ME = {
  method: 'GET',
  path: '/me',
  url: 'https://acme.example.com/api/v1/me',
  baseUrl: 'https://acme.example.com',
  scope: undefined,
} as const;
