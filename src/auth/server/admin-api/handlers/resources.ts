import { defaults } from '../../../../config/defaults.js'
import { builtInResources } from '../../admin/built-in-resources.js'
import { sharedIdentifiers, type ResolvedResource } from '../../options.js'
import { ResourceConflictError, StaleResourceError, type StoredResource } from '../../stores/resource-store.js'
import type { AdminOperation, AdminRequest } from '../admin-context.js'
import { revisionToMatch } from '../etag.js'
import { AdminProblem } from '../problem.js'
import { resourceId, resourceInput, resourceUri, resourceView } from '../resource-view.js'

const a = defaults.authServer.admin

/** The resources that are not stored: read-only here. */
function fixedResources(request: AdminRequest): Array<{ resource: ResolvedResource; source: 'configured' | 'built-in' }> {
  return [
    ...request.services.configuredResources.map((resource) => ({ resource, source: 'configured' as const })),
    ...builtInResources(request.services.issuer).map((resource) => ({ resource, source: 'built-in' as const })),
  ]
}

/** 409 when one of `resource`'s identifiers is a configured or built-in resource's. */
function refuseFixedIdentifiers(request: AdminRequest, resource: { uri: string; aliases?: string[] }): void {
  for (const { resource: fixed, source } of fixedResources(request)) {
    const shared = sharedIdentifiers(resource, fixed)
    if (shared.length > 0) throw new AdminProblem('conflict', `${shared.join(' ')} already names the ${source} resource ${fixed.uri}: ${whatToDo(source)}`)
  }
}

function whatToDo(source: 'configured' | 'built-in'): string {
  return source === 'configured'
    ? 'it is read-only here; change it in the server’s configuration (or the gateway’s servers file) and restart'
    : 'the server’s own resources cannot be changed'
}

/** The stored resource `id` names, or a 404 / 409 saying what it is instead. */
async function storedOf(request: AdminRequest): Promise<StoredResource> {
  const uri = resourceUri(request.params['id']!)
  if (uri === undefined) throw new AdminProblem('not-found', 'no resource has this id: an id is the base64url of the resource URI (see GET /resources)')
  const fixed = fixedResources(request).find(({ resource }) => resource.uri === uri)
  if (fixed !== undefined) throw new AdminProblem('conflict', `${uri} is a ${fixed.source} resource: ${whatToDo(fixed.source)}`, { extra: { source: fixed.source } })
  const stored = await request.services.resources.get(uri)
  if (stored === undefined) throw new AdminProblem('not-found', `no resource ${uri}`)
  return stored
}

/** The store's refusals as problems: an invalid resource 400, a shared identifier 409, a change since 412. */
function problemOf(error: unknown): unknown {
  if (error instanceof ResourceConflictError) return new AdminProblem('conflict', error.message.replace(/^invalid resource:\n\s*/, ''), { cause: error })
  if (error instanceof StaleResourceError) return new AdminProblem('precondition-failed', error.message, { cause: error })
  if (error instanceof TypeError) return new AdminProblem('invalid-request', error.message.replace(/^invalid resource:\n\s*/, ''), { cause: error })
  return error
}

/** Resources: the operations of the document's `resources` tag, by operationId. */
export const resourcesOperations: Record<string, AdminOperation> = {
  async listResources(request) {
    const fixed = fixedResources(request)
    const served: Array<{ uri: string; aliases?: string[] }> = fixed.map(({ resource }) => resource)
    const stored = (await request.services.resources.list()).map((resource) => {
      // as the server merges them: a stored one sharing an identifier with one before it is not served
      const isServed = served.every((other) => sharedIdentifiers(resource, other).length === 0)
      if (isServed) served.push(resource)
      return resourceView(resource, 'stored', isServed)
    })
    const [configured, builtIn] = [fixed.filter((entry) => entry.source === 'configured'), fixed.filter((entry) => entry.source === 'built-in')]
    return {
      body: {
        items: [...configured.map(({ resource }) => resourceView(resource, 'configured')), ...stored, ...builtIn.map(({ resource }) => resourceView(resource, 'built-in'))],
      },
    }
  },

  async createResource(request) {
    const body = request.body as Record<string, unknown> & { uri: string }
    const input = resourceInput(body, body.uri)
    refuseFixedIdentifiers(request, { uri: body.uri, ...(Array.isArray(body['aliases']) ? { aliases: body['aliases'] as string[] } : {}) })
    if ((await request.services.resources.list()).length >= a.maxStoredResources)
      throw new AdminProblem('conflict', `${a.maxStoredResources} resources are stored (the most, defaults.authServer.admin.maxStoredResources): remove one first`)
    const created = await request.services.resources.create(input).catch((error: unknown) => {
      throw problemOf(error)
    })
    if (created === undefined) throw new AdminProblem('conflict', `${body.uri} is stored already: change it with PUT /resources/${resourceId(body.uri)}`)
    request.services.administration.audit.record({ type: 'resource.added', result: 'success', resource: created.uri, scopes: created.scopes })
    return {
      status: 201,
      etag: resourceView(created, 'stored').etag as string,
      headers: { location: `${request.services.issuer.href.replace(/\/$/, '')}${a.apiPath}/resources/${resourceId(created.uri)}` },
      body: resourceView(created, 'stored'),
    }
  },

  async getResource(request) {
    const uri = resourceUri(request.params['id']!)
    const fixed = fixedResources(request).find(({ resource }) => resource.uri === uri)
    if (fixed !== undefined) return { body: resourceView(fixed.resource, fixed.source) }
    const stored = await storedOf(request)
    const view = resourceView(stored, 'stored')
    return { etag: view.etag as string, body: view }
  },

  async replaceResource(request) {
    const current = await storedOf(request)
    const rev = revisionToMatch(request.ifMatch, current, `the resource ${current.uri}`)
    const body = request.body as Record<string, unknown>
    if (body['uri'] !== undefined && body['uri'] !== current.uri)
      throw new AdminProblem('invalid-request', `a stored resource keeps its URI (${current.uri}): POST the new one and DELETE this one instead`)
    refuseFixedIdentifiers(request, { uri: current.uri, ...(Array.isArray(body['aliases']) ? { aliases: body['aliases'] as string[] } : {}) })
    const changed = await request.services.resources.update(current.uri, resourceInput(body, current.uri), rev).catch((error: unknown) => {
      throw problemOf(error)
    })
    if (changed === undefined) throw new AdminProblem('not-found', `no resource ${current.uri}: it was removed meanwhile`)
    request.services.administration.audit.record({ type: 'resource.changed', result: 'success', resource: changed.uri, scopes: changed.scopes })
    const view = resourceView(changed, 'stored')
    return { etag: view.etag as string, body: view }
  },

  async deleteResource(request) {
    const current = await storedOf(request)
    const rev = revisionToMatch(request.ifMatch, current, `the resource ${current.uri}`)
    const removed = await request.services.resources.remove(current.uri, rev).catch((error: unknown) => {
      throw problemOf(error)
    })
    if (!removed) throw new AdminProblem('not-found', `no resource ${current.uri}: it was removed meanwhile`)
    request.services.administration.audit.record({ type: 'resource.removed', result: 'success', resource: current.uri })
    return { status: 204 }
  },
}
