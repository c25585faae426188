{{- define "worker-image.labels" -}}
app.kubernetes.io/part-of: kubernetes-worker-image
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{- define "worker-image.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag }}
{{- end -}}

{{- define "worker-image.catalogRelease" -}}
{{- if .Values.catalogRelease.name -}}
{{ .Values.catalogRelease.namespace }}/{{ .Values.catalogRelease.name }}
{{- end -}}
{{- end -}}

{{- define "worker-image.readRules" -}}
# What a plan and a catalog render read (plan.Needs, catalog.RenderNeeds).
- apiGroups: [""]
  resources: [persistentvolumeclaims]
  verbs: [get, list, watch]
# A golden's volume, read by name from the API server: no informer holds
# the cluster's volumes.
- apiGroups: [""]
  resources: [persistentvolumes]
  verbs: [get]
- apiGroups: [cdi.kubevirt.io]
  resources: [cdiconfigs, cdis, datavolumes, storageprofiles]
  verbs: [get, list, watch]
- apiGroups: [snapshot.storage.k8s.io]
  resources: [volumesnapshotclasses]
  verbs: [get, list, watch]
- apiGroups: [storage.k8s.io]
  resources: [csidrivers, storageclasses]
  verbs: [get, list, watch]
{{- end -}}

{{- /*
The rules that grant verbs (index 1) on exactly the ConfigMaps and Secrets a
catalog release's spec.valuesFrom names (index 0: {configMaps, secrets}); none
for an empty list, which in a rule would mean every object of the kind.
*/ -}}
{{- define "worker-image.valuesFromRules" -}}
{{- $from := index . 0 -}}
{{- $verbs := index . 1 -}}
{{- if $from.configMaps }}
- apiGroups: [""]
  resources: [configmaps]
  resourceNames:
  {{- range $from.configMaps }}
  - {{ printf "%q" . }}
  {{- end }}
  verbs: [{{ $verbs }}]
{{- end }}
{{- if $from.secrets }}
- apiGroups: [""]
  resources: [secrets]
  resourceNames:
  {{- range $from.secrets }}
  - {{ printf "%q" . }}
  {{- end }}
  verbs: [{{ $verbs }}]
{{- end }}
{{- end -}}

{{- define "worker-image.securityContext" -}}
securityContext:
  allowPrivilegeEscalation: false
  capabilities:
    drop: [ALL]
  readOnlyRootFilesystem: true
{{- end -}}
