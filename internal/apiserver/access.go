package apiserver

import (
	"context"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// User returns the config of a user, name, whom a ClusterRole of that name
// grants rules and nothing else (a user made before gets these rules). It
// returns once the API server's authorizer applies them: RBAC reaches it
// through an informer, a moment after the write.
func (e *Env) User(t testing.TB, name string, rules ...rbacv1.PolicyRule) *rest.Config {
	t.Helper()
	ctx := context.Background()
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: rules}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: name}},
	}
	if err := e.Client.Create(ctx, role); apierrors.IsAlreadyExists(err) {
		// Another test of the package made this user: give it these rules.
		existing := &rbacv1.ClusterRole{}
		if err = e.Client.Get(ctx, client.ObjectKeyFromObject(role), existing); err == nil {
			existing.Rules = rules
			err = e.Client.Update(ctx, existing)
		}
		if err != nil {
			t.Fatalf("update ClusterRole %s: %v", name, err)
		}
	} else if err != nil {
		t.Fatalf("create ClusterRole %s: %v", name, err)
	}
	if err := e.Client.Create(ctx, binding); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("create ClusterRoleBinding %s: %v", name, err)
	}
	user, err := e.env.AddUser(envtest.User{Name: name}, nil)
	if err != nil {
		t.Fatalf("add user %s: %v", name, err)
	}
	for _, rule := range rules {
		e.waitAllowed(t, name, rule)
	}
	return user.Config()
}

// waitAllowed waits until the authorizer grants name each resource of rule
// for the rule's first verb.
func (e *Env) waitAllowed(t testing.TB, name string, rule rbacv1.PolicyRule) {
	t.Helper()
	if len(rule.Verbs) == 0 {
		return
	}
	group := ""
	if len(rule.APIGroups) > 0 {
		group = rule.APIGroups[0]
	}
	for _, resource := range rule.Resources {
		err := wait.PollUntilContextTimeout(context.Background(), 50*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
			review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
				User:               name,
				ResourceAttributes: &authorizationv1.ResourceAttributes{Group: group, Resource: resource, Verb: rule.Verbs[0]},
			}}
			if err := e.Client.Create(ctx, review); err != nil {
				return false, err
			}
			return review.Status.Allowed, nil
		})
		if err != nil {
			t.Fatalf("RBAC never let user %s %s %s: %v", name, rule.Verbs[0], resource, err)
		}
	}
}
